import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { BACKENDS } from './support/backends.js';
import { ChatServer, SLACK_PATH, messageText, waitUntil } from './support/chat-server.js';
import { writeKeysFile } from './support/keys-file.js';
import { WEBHOOK, postSigned, slackMessage } from './support/slack-events.js';
import { gatewayForSuite } from './support/suite.js';

const ROOT = 'messaging-auth-root-key';
const KEYS = {
  runner: 'messaging-runner-key',
  acmeOperator: 'messaging-acme-operator',
  acmeViewer: 'messaging-acme-viewer',
  auditor: 'messaging-auditor-key',
};

describe.each(BACKENDS)('messaging webhook without a signing secret (%s)', (backend) => {
  const chat = new ChatServer();
  beforeAll(() => chat.start());
  afterAll(() => chat.close());
  // Only chata has a webhook address here.
  const gateway = gatewayForSuite(backend, () => ({
    SVC_API_KEY: ROOT,
    SVC_KEYS_FILE: writeKeysFile({
      keys: [
        { id: 'run-1', key: KEYS.runner, roles: ['runner'] },
        { id: 'ops-acme', key: KEYS.acmeOperator, tenant_id: 'acme', roles: ['operator'] },
        { id: 'view-acme', key: KEYS.acmeViewer, tenant_id: 'acme', roles: ['viewer'] },
        { id: 'audit-1', key: KEYS.auditor, roles: ['auditor'] },
      ],
      roles: { auditor: ['runs:read'] },
    }),
    SVC_CHATA_WEBHOOK: chat.slackUrl,
    SVC_SLACK_TENANTS: 'T000=acme,T0GLOBEX=globex',
    SVC_OUTBOX_POLL_MS: '50',
  }));
  const as = (key: string) => ({ Authorization: `Bearer ${key}` });
  const event = (tenant: string, text: string, channel = 'chata') => ({
    tenant_id: tenant,
    channel,
    conversation_id: 'c1',
    user: 'erin',
    text,
    event_id: `auth-${Math.random().toString(36).slice(2)}`,
  });
  const post = (key: string | undefined, body: unknown, query = '') => {
    const req = request(gateway.url).post(`${WEBHOOK}${query}`);
    return (key ? req.set(as(key)) : req).send(body as object);
  };

  it('needs an API key with messaging:write', async () => {
    const anonymous = await post(undefined, event('acme', 'x'));
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers['www-authenticate']).toBe('Bearer realm="svc"');
    // A signature means nothing without a secret.
    await postSigned(gateway.url, 'any-secret', event('acme', 'x')).expect(401);
    // The viewer role may read messaging, not write it.
    await post(KEYS.acmeViewer, event('acme', 'x')).expect(403);
    await post(KEYS.auditor, event('acme', 'x')).expect(403);

    const ok = await post(KEYS.runner, event('globex', 'from the runner')).expect(200);
    expect(ok.body).toMatchObject({ ok: true, duplicate: false });
    await post(KEYS.acmeOperator, event('acme', 'from the operator')).expect(200);
    await post(ROOT, slackMessage('from slack with a key'), '?tenant_id=acme').expect(200);
    await waitUntil(
      () =>
        ['from the runner', 'from the operator', 'from slack with a key'].every((text) =>
          chat.received(SLACK_PATH).some((c) => messageText(c.body) === text),
        ),
      'all three replies are delivered',
    );
  });

  it('keeps a tenant-bound key inside its tenant, for generic and Slack events', async () => {
    await post(KEYS.acmeOperator, event('globex', 'x')).expect(403);
    await post(KEYS.acmeOperator, slackMessage('x'), '?tenant_id=globex').expect(403);
    // A Slack event's tenant is its workspace's, with a key too: globex's is not acme's to post.
    const globex = { ...slackMessage('x'), team_id: 'T0GLOBEX' };
    await post(KEYS.acmeOperator, globex).expect(403);
    await post(KEYS.acmeOperator, globex, '?tenant_id=acme').expect(400);
    // A workspace without a tenant is refused, whoever posts it (no SVC_TENANT here).
    const unmapped = { ...slackMessage('x'), team_id: 'T0NOBODY' };
    const refused = await post(ROOT, unmapped).expect(403);
    expect(refused.body.type).toBe('urn:svc:problem:slack-workspace-not-mapped');
  });

  it('refuses a channel without a webhook address with 422, before anything is recorded', async () => {
    const body = event('acme', 'to teams', 'chatb');
    const res = await post(ROOT, body).expect(422);
    expect(res.body).toMatchObject({ type: 'urn:svc:problem:channel-not-configured' });
    expect(res.body.detail).toContain('SVC_CHATB_WEBHOOK');
    const outbox = await request(gateway.url)
      .get('/v1/messaging/outbox?tenant_id=acme')
      .set(as(ROOT))
      .expect(200);
    expect(
      (outbox.body.deliveries as Array<{ event_id: string }>).map((d) => d.event_id),
    ).not.toContain(body.event_id);
  });

  it('lists a tenant’s outbox with messaging:read, inside the key’s tenant', async () => {
    await request(gateway.url).get('/v1/messaging/outbox?tenant_id=acme').expect(401);
    const listed = await request(gateway.url)
      .get('/v1/messaging/outbox?tenant_id=acme&status=delivered&limit=10')
      .set(as(KEYS.acmeViewer))
      .expect(200);
    const deliveries = listed.body.deliveries as Array<Record<string, unknown>>;
    expect(deliveries.length).toBeGreaterThanOrEqual(1);
    for (const delivery of deliveries) {
      expect(delivery).toMatchObject({ tenant_id: 'acme', status: 'delivered', channel: 'chata' });
    }
    expect(deliveries[0]).toEqual({
      id: expect.any(String),
      tenant_id: 'acme',
      channel: 'chata',
      conversation_id: expect.any(String),
      event_id: expect.any(String),
      user: expect.any(String),
      run_id: deliveries[0].id,
      session_id: expect.any(String),
      status: 'delivered',
      reply: expect.any(String),
      attempts: 1,
      last_error: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      delivered_at: expect.any(String),
      next_attempt_at: null,
    });
    await request(gateway.url)
      .get('/v1/messaging/outbox?tenant_id=globex')
      .set(as(KEYS.acmeViewer))
      .expect(403);
    await request(gateway.url)
      .get('/v1/messaging/outbox?tenant_id=acme')
      .set(as(KEYS.auditor))
      .expect(403);
    await request(gateway.url).get('/v1/messaging/outbox').set(as(ROOT)).expect(400);
    await request(gateway.url)
      .get('/v1/messaging/outbox?tenant_id=acme&status=lost')
      .set(as(ROOT))
      .expect(400);
  });

  it('shows on the health endpoint that no signature is required and chatb is not configured', async () => {
    const res = await request(gateway.url).get('/v1/messaging/webhook/health').expect(200);
    expect(res.body).toMatchObject({
      status: 'ok',
      signature_required: false,
      adapters: { chata: { configured: true }, chatb: { configured: false } },
    });
  });
});
