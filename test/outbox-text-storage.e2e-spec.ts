import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import Database from 'better-sqlite3';
import request from 'supertest';
import { STATE_MIGRATIONS_TABLE } from '../src/platform/state/state-data-source.js';
import { ENCODED_TEXT_MARKER } from '../src/platform/state/stored-text.js';
import { BACKENDS, type BackendFixture, createBackend } from './support/backends.js';
import { startGateway } from './support/gateway.js';

const KEY = 'outbox-text-test-key';
const LEGACY = `${ENCODED_TEXT_MARKER}"an old reply that starts with the marker"`;

/** Runs one statement on the backend's database, as an older version would have. */
async function execute(fixture: BackendFixture, sql: string, params: unknown[]): Promise<void> {
  if (fixture.database) {
    await fixture.database.query(sql, params);
    return;
  }
  const db = new Database(fixture.env.SVC_STATE_SQLITE);
  try {
    db.prepare(sql.replace(/\$\d+/g, '?')).run(...params);
  } finally {
    db.close();
  }
}

describe.each(BACKENDS)('outbox rows written before the text encoding (%s)', (backend) => {
  let fixture: BackendFixture;
  beforeAll(async () => {
    fixture = await createBackend(backend);
  });
  afterAll(async () => fixture?.cleanup());

  it('read back exactly after the migration, whatever they start with', async () => {
    const env = { ...fixture.env, SVC_API_KEY: KEY };
    const first = await startGateway(env);
    await first.close();
    // The database as it was before EncodeOutboxMarkerText: two rows, one starting with the marker.
    await execute(fixture, `DELETE FROM ${STATE_MIGRATIONS_TABLE} WHERE name = $1`, [
      'EncodeOutboxMarkerText1795478400000',
    ]);
    for (const [id, reply] of [
      ['msg-legacy-marker', LEGACY],
      ['msg-legacy-plain', 'a plain old reply'],
    ]) {
      await execute(
        fixture,
        `INSERT INTO messaging_outbox (tenant_id, id, channel, conversation_id, event_id, sender,
          input_text, session_id, actor, status, reply_text, attempts, next_attempt_at,
          created_at, updated_at)
         VALUES ($1, $2, 'chata', 'c', $3, 'u', $4, 'conv-x', 'k', 'delivered', $5, 1, 0, 0, 0)`,
        ['old', id, id, reply, reply],
      );
    }

    const gateway = await startGateway(env);
    try {
      const res = await request(gateway.url)
        .get('/v1/messaging/outbox?tenant_id=old')
        .set('Authorization', `Bearer ${KEY}`)
        .expect(200);
      const replies = Object.fromEntries(
        (res.body.deliveries as Array<{ id: string; reply: string }>).map((d) => [d.id, d.reply]),
      );
      expect(replies).toEqual({
        'msg-legacy-marker': LEGACY,
        'msg-legacy-plain': 'a plain old reply',
      });
    } finally {
      await gateway.close();
    }
  });
});
