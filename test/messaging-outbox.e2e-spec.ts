import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { conversationSessionId, messageId } from '../src/messaging/message-ids.js';
import { OutboxStore } from '../src/messaging/outbox.store.js';
import { BACKENDS, type BackendFixture, createBackend } from './support/backends.js';
import {
  type ChatReply,
  ChatServer,
  SLACK_PATH,
  TEAMS_PATH,
  messageText,
  waitUntil,
} from './support/chat-server.js';
import { type RunningGateway, startGateway } from './support/gateway.js';
import { outboxEntry } from './support/outbox-entries.js';
import { WEBHOOK } from './support/slack-events.js';

const MAX_ATTEMPTS = 4;

describe.each(BACKENDS)('messaging outbox: retries, failures and restarts (%s)', (backend) => {
  const chat = new ChatServer();
  let fixture: BackendFixture;
  let gateway: RunningGateway | undefined;
  const env = () => ({
    ...fixture.env,
    SVC_CHATA_WEBHOOK: chat.slackUrl,
    SVC_CHATB_WEBHOOK: chat.teamsUrl,
    SVC_OUTBOX_POLL_MS: '50',
    SVC_OUTBOX_RETRY_BASE_MS: '100',
    SVC_OUTBOX_MAX_ATTEMPTS: String(MAX_ATTEMPTS),
    SVC_LEASE_TTL_MS: '1000',
  });

  beforeAll(async () => {
    await chat.start();
    fixture = await createBackend(backend);
    gateway = await startGateway(env());
  });
  afterAll(async () => {
    await gateway?.close();
    await fixture?.cleanup();
    await chat.close();
  });

  let n = 0;
  /** Posts a generic event (auth is off in this suite) whose reply echoes `text`. */
  const send = async (text: string, channel = 'chata') => {
    const res = await request(gateway!.url)
      .post(WEBHOOK)
      .send({
        tenant_id: 'acme',
        channel,
        conversation_id: `conv-${++n}`,
        user: 'carol',
        text,
        event_id: `outbox-${n}`,
      })
      .expect(200);
    return res.body as { id: string };
  };
  const path = (channel: string) => (channel === 'chata' ? SLACK_PATH : TEAMS_PATH);
  /** The calls that carried `text`. */
  const callsFor = (text: string, channel = 'chata') =>
    chat.received(path(channel), (body) => messageText(body) === text);
  const entry = async (id: string) => {
    const res = await request(gateway!.url).get('/v1/messaging/outbox?tenant_id=acme').expect(200);
    return (res.body.deliveries as Array<Record<string, unknown>>).find((d) => d.id === id);
  };
  /** How the stand-in answers the n-th call carrying a text; 200 for texts without a rule. */
  const rules = new Map<string, (n: number) => ChatReply>();
  const byText = (_n: number, body: unknown): ChatReply => {
    const text = messageText(body) ?? '';
    return rules.get(text)?.(chat.calls.filter((c) => messageText(c.body) === text).length) ?? {};
  };
  beforeAll(() => {
    chat.script(SLACK_PATH, byText);
    chat.script(TEAMS_PATH, byText);
  });

  it('delivers once after the chat system answers 500 three times', async () => {
    rules.set('flaky', (i) => (i < 3 ? { status: 500 } : {}));
    const body = await send('flaky');
    await waitUntil(async () => (await entry(body.id))?.status === 'delivered', 'delivered');
    expect(callsFor('flaky').map((c) => c.status)).toEqual([500, 500, 500, 200]);
    expect(await entry(body.id)).toMatchObject({ attempts: 4, last_error: null });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(callsFor('flaky')).toHaveLength(4);
  });

  it('sends the same Idempotency-Key on every attempt of one delivery, another on the next', async () => {
    rules.set('keyed', (i) => (i === 0 ? { status: 500 } : {}));
    const body = await send('keyed');
    await waitUntil(async () => (await entry(body.id))?.status === 'delivered', 'delivered');
    const keys = callsFor('keyed').map((c) => [c.status, c.headers['idempotency-key']]);
    expect(keys).toEqual([
      [500, `acme/${body.id}`],
      [200, `acme/${body.id}`],
    ]);
    const other = await send('keyed too');
    await waitUntil(async () => (await entry(other.id))?.status === 'delivered', 'delivered');
    expect(callsFor('keyed too').map((c) => c.headers['idempotency-key'])).toEqual([
      `acme/${other.id}`,
    ]);
  });

  it('waits at least the Retry-After of a 429', async () => {
    rules.set('rate limited', (i) =>
      i === 0 ? { status: 429, headers: { 'Retry-After': '1' } } : {},
    );
    const body = await send('rate limited', 'chatb');
    await waitUntil(async () => (await entry(body.id))?.status === 'delivered', 'delivered');
    const [first, second] = callsFor('rate limited', 'chatb');
    expect([first.status, second.status]).toEqual([429, 200]);
    expect(second.at - first.at).toBeGreaterThanOrEqual(1000);
  });

  it('marks a message failed after the last attempt, audits it and stops trying', async () => {
    rules.set('never', () => ({ status: 503 }));
    const body = await send('never');
    await waitUntil(async () => (await entry(body.id))?.status === 'failed', 'failed');
    expect(callsFor('never')).toHaveLength(MAX_ATTEMPTS);
    expect(await entry(body.id)).toMatchObject({
      attempts: MAX_ATTEMPTS,
      last_error: 'webhook answered HTTP 503',
      delivered_at: null,
    });
    const audit = await request(gateway!.url)
      .get('/v1/audit?tenant_id=acme&kind=messaging.delivery_failed')
      .expect(200);
    expect(audit.body.events[0]).toMatchObject({
      kind: 'messaging.delivery_failed',
      details: { id: body.id, channel: 'chata', attempts: MAX_ATTEMPTS },
    });
    expect(JSON.stringify(audit.body)).not.toContain(chat.url);
    const health = await request(gateway!.url).get('/v1/messaging/webhook/health').expect(200);
    expect(health.body.outbox.failed).toBeGreaterThanOrEqual(1);
    const metrics = (await request(gateway!.url).get('/metrics').expect(200)).text;
    expect(Number(/^svc_outbox_failed (\d+)/m.exec(metrics)?.[1])).toBe(health.body.outbox.failed);
    expect(metrics).toMatch(/^svc_outbox_depth\{status="pending"\} \d+/m);
    expect(metrics).toMatch(/^svc_outbox_oldest_pending_age_seconds \d/m);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(callsFor('never')).toHaveLength(MAX_ATTEMPTS);
  });

  it('does not retry an answer that will not change (400)', async () => {
    rules.set('bad payload', () => ({ status: 400 }));
    const body = await send('bad payload');
    await waitUntil(async () => (await entry(body.id))?.status === 'failed', 'failed');
    expect(callsFor('bad payload')).toHaveLength(1);
  });

  it('delivers a message still pending when the process stopped, once, after a restart', async () => {
    let down = true;
    rules.set('survives restart', () => (down ? { status: 503 } : {}));
    const body = await send('survives restart');
    await waitUntil(() => callsFor('survives restart').length >= 1, 'a first failed attempt');
    const health = await request(gateway!.url).get('/v1/messaging/webhook/health').expect(200);
    expect(health.body.outbox.pending).toBeGreaterThanOrEqual(1);
    expect(health.body.outbox.oldest_pending_age_ms).toEqual(expect.any(Number));

    await gateway!.close();
    gateway = undefined;
    down = false;
    const before = callsFor('survives restart').length;
    gateway = await startGateway(env());

    await waitUntil(async () => (await entry(body.id))?.status === 'delivered', 'delivered');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const calls = callsFor('survives restart');
    expect(calls.filter((c) => c.status === 200)).toHaveLength(1);
    expect(calls.length).toBe(before + 1);
    // The restarted process repeats the delivery under the same key.
    expect(new Set(calls.map((c) => c.headers['idempotency-key']))).toEqual(
      new Set([`acme/${body.id}`]),
    );
  });

  it('delivers a reply claimed by a process that stopped before its attempt, once, when the claim ends', async () => {
    // As a replica leaves it that stored the reply, claimed for its own attempt, and died.
    const store = gateway!.app.get(OutboxStore);
    const id = messageId('chata', 'claimed-1');
    await store.accept(
      outboxEntry(id, {
        conversationId: 'claims',
        eventId: 'claimed-1',
        user: 'erin',
        text: 'claimed question',
        sessionId: conversationSessionId('chata', 'claims'),
        actor: 'test',
      }),
      60_000,
    );
    const claimed = await store.setReply('acme', id, 'claimed answer', { claimMs: 1500 });
    await waitUntil(async () => (await entry(id))?.status === 'delivered', 'delivered');
    // Not before the claim ended (both times are the database's), and once.
    const delivered = await store.get('acme', id);
    expect(delivered!.deliveredAt).toBeGreaterThanOrEqual(claimed!.nextAttemptAt);
    expect(delivered!.attempts).toBe(1);
    expect(callsFor('claimed answer')).toHaveLength(1);
  });

  it('runs and answers an event whose process stopped before its run finished', async () => {
    // As a replica that accepted the event and died mid-run leaves it: recorded, `running`.
    const store = gateway!.app.get(OutboxStore);
    const id = messageId('chatb', 'orphaned-1');
    await store.accept(
      outboxEntry(id, {
        channel: 'chatb',
        conversationId: 'orphans',
        eventId: 'orphaned-1',
        user: 'dave',
        text: 'orphaned question',
        sessionId: conversationSessionId('chatb', 'orphans'),
        actor: 'test',
      }),
      0,
    );
    await waitUntil(
      async () => (await entry(id))?.status === 'delivered',
      'recovered and delivered',
    );
    expect(callsFor('orphaned question', 'chatb')).toHaveLength(1);
    const run = await request(gateway!.url).get(`/v1/runs/${id}?tenant_id=acme`).expect(200);
    expect(run.body).toMatchObject({ status: 'completed', text: 'orphaned question' });
    // The event is still a duplicate for the webhook.
    const again = await request(gateway!.url)
      .post(WEBHOOK)
      .send({
        tenant_id: 'acme',
        channel: 'chatb',
        conversation_id: 'orphans',
        user: 'dave',
        text: 'orphaned question',
        event_id: 'orphaned-1',
      })
      .expect(200);
    expect(again.body).toMatchObject({ duplicate: true, status: 'delivered', id });
  });

  // Last: it prunes every finished entry of the suite.
  it('answers an event sent again after its entry was pruned with its run, not a new one', async () => {
    const event = {
      tenant_id: 'acme',
      channel: 'chata',
      conversation_id: 'pruned',
      user: 'erin',
      text: 'asked twice',
      event_id: 'pruned-1',
    };
    const first = await request(gateway!.url).post(WEBHOOK).send(event).expect(200);
    const id = (first.body as { id: string }).id;
    await waitUntil(async () => (await entry(id))?.status === 'delivered', 'delivered');
    const runPath = `/v1/runs/${id}?tenant_id=acme`;
    const run: unknown = (await request(gateway!.url).get(runPath).expect(200)).body;
    expect(await gateway!.app.get(OutboxStore).prune(0)).toBeGreaterThanOrEqual(1);
    expect(await entry(id)).toBeUndefined();

    // A new entry under the same id; its run id has a settled run already.
    const second = await request(gateway!.url).post(WEBHOOK).send(event).expect(200);
    expect(second.body).toMatchObject({ duplicate: false, id });
    await waitUntil(async () => (await entry(id))?.status === 'delivered', 'delivered');
    expect((await request(gateway!.url).get(runPath).expect(200)).body).toEqual(run);
    expect(callsFor('asked twice').map((call) => call.status)).toEqual([200, 200]);
  });
});
