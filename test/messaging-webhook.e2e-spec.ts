import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { BACKENDS } from './support/backends.js';
import {
  ChatServer,
  SLACK_PATH,
  TEAMS_PATH,
  messageText,
  waitUntil,
} from './support/chat-server.js';
import { WEBHOOK, postSigned, signatureHeaders, slackMessage } from './support/slack-events.js';
import { gatewayForSuite } from './support/suite.js';

const KEY = 'messaging-webhook-test-key';
const SECRET = 'slack-signing-secret-for-tests';
const auth = { Authorization: `Bearer ${KEY}` };

describe.each(BACKENDS)('messaging webhook with a signing secret (%s)', (backend) => {
  const chat = new ChatServer();
  beforeAll(() => chat.start());
  afterAll(() => chat.close());
  const gateway = gatewayForSuite(backend, () => ({
    SVC_API_KEY: KEY,
    SVC_MESSAGING_SECRET: SECRET,
    SVC_CHATA_WEBHOOK: chat.slackUrl,
    SVC_CHATB_WEBHOOK: chat.teamsUrl,
    // SVC_TENANT is set to show that it is no fallback for a workspace the mapping leaves out.
    SVC_TENANT: 'default-tenant',
    SVC_SLACK_TENANTS: 'T000=acme,E0GRID=grid',
    SVC_OUTBOX_POLL_MS: '50',
    SVC_OUTBOX_RETRY_BASE_MS: '100',
  }));

  const generic = (overrides: Record<string, string> = {}) => ({
    tenant_id: 'acme',
    channel: 'chatb',
    conversation_id: 'team-room-1',
    user: 'bob',
    text: 'hello teams',
    event_id: `evt-${Math.random().toString(36).slice(2)}`,
    ...overrides,
  });
  const audit = async (tenant: string, kind: string) => {
    const res = await request(gateway.url)
      .get(`/v1/audit?tenant_id=${tenant}&kind=${kind}&limit=1000`)
      .set(auth)
      .expect(200);
    return res.body.events as Array<{ details: Record<string, unknown> }>;
  };
  const outbox = async (tenant: string) => {
    const res = await request(gateway.url)
      .get(`/v1/messaging/outbox?tenant_id=${tenant}`)
      .set(auth)
      .expect(200);
    return res.body.deliveries as Array<Record<string, unknown>>;
  };
  const slackTexts = () => chat.received(SLACK_PATH).map((call) => messageText(call.body));

  it('answers Slack’s url_verification with the challenge', async () => {
    const res = await postSigned(gateway.url, SECRET, {
      token: 't',
      type: 'url_verification',
      challenge: 'c-123',
    }).expect(200);
    expect(res.body).toEqual({ challenge: 'c-123' });
  });

  it('runs the agent for a signed Slack message and posts the reply to chata in Slack’s shape', async () => {
    const event = slackMessage('hello from slack', { channel: 'C0SUPPORT' });
    const res = await postSigned(gateway.url, SECRET, event, { query: '?tenant_id=acme' }).expect(
      200,
    );
    expect(res.body).toMatchObject({
      ok: true,
      duplicate: false,
      status: 'running',
      event_id: `T000:C0SUPPORT:${event.event.ts}`,
      id: expect.stringMatching(/^msg-[0-9a-f]{32}$/),
      session_id: expect.stringMatching(/^conv-[0-9a-f]{32}$/),
    });
    expect(res.body.run_id).toBe(res.body.id);

    await waitUntil(
      () => slackTexts().includes('hello from slack'),
      'the reply reaches the Slack stand-in',
    );
    const [call] = chat.received(SLACK_PATH, (body) => messageText(body) === 'hello from slack');
    expect(call.body).toEqual({ text: 'hello from slack' });
    expect(call.headers['content-type']).toMatch(/^application\/json/);

    const run = await request(gateway.url)
      .get(`/v1/runs/${res.body.run_id as string}?tenant_id=acme`)
      .set(auth)
      .expect(200);
    expect(run.body).toMatchObject({
      status: 'completed',
      session_id: res.body.session_id,
      metadata: { channel: 'chata', conversation_id: 'C0SUPPORT', user: 'U0ALICE' },
    });
    await waitUntil(
      async () =>
        (await outbox('acme')).some((d) => d.id === res.body.id && d.status === 'delivered'),
      'the outbox marks it delivered',
    );
    const [entry] = (await outbox('acme')).filter((d) => d.id === res.body.id);
    expect(entry).toMatchObject({ channel: 'chata', attempts: 1, reply: 'hello from slack' });
  });

  it('takes a Slack event’s tenant from its signed workspace; ?tenant_id= may only repeat it', async () => {
    const res = await postSigned(gateway.url, SECRET, slackMessage('who am I'), {
      query: '?wait=true',
    }).expect(200);
    await request(gateway.url)
      .get(`/v1/runs/${res.body.run_id as string}?tenant_id=acme`)
      .set(auth)
      .expect(200);
    // An Enterprise Grid workspace without a mapping of its own goes by its org.
    const grid = { ...slackMessage('from the org'), team_id: 'T0NEW', enterprise_id: 'E0GRID' };
    const org = await postSigned(gateway.url, SECRET, grid, { query: '?wait=true' }).expect(200);
    await request(gateway.url)
      .get(`/v1/runs/${org.body.run_id as string}?tenant_id=grid`)
      .set(auth)
      .expect(200);
  });

  it('never replays a signed Slack event into another tenant (the same bytes, other ?tenant_id=)', async () => {
    const event = slackMessage('replay me');
    const body = JSON.stringify(event);
    const headers = signatureHeaders(SECRET, body);
    const replay = (query: string) =>
      request(gateway.url)
        .post(`${WEBHOOK}${query}`)
        .set('Content-Type', 'application/json')
        .set(headers)
        .send(body);

    const intruded = await replay('?tenant_id=tb');
    expect(intruded.status).toBe(400);
    expect(intruded.body.errors).toEqual([
      {
        path: 'tenant_id',
        message: 'tenant_id in the query is not the tenant of this Slack workspace',
      },
    ]);
    const first = await replay('').expect(200);
    expect(first.body).toMatchObject({ duplicate: false });
    const again = await replay('?tenant_id=acme').expect(200);
    expect(again.body).toMatchObject({ duplicate: true, id: first.body.id });
    await replay('?tenant_id=default-tenant').expect(400);
    await replay('?tenant_id=tb').expect(400);

    await waitUntil(
      () => slackTexts().includes('replay me'),
      'the one reply reaches the Slack stand-in',
    );
    const started = await audit('acme', 'run.started');
    expect(started.filter((e) => e.details.run_id === first.body.id)).toHaveLength(1);
    for (const other of ['tb', 'default-tenant']) {
      expect((await audit(other, 'run.started')).map((e) => e.details.run_id)).not.toContain(
        first.body.id,
      );
      expect((await outbox(other)).map((d) => d.id)).not.toContain(first.body.id);
    }
  });

  it('refuses an event from a workspace the mapping leaves out with 403, even with SVC_TENANT set', async () => {
    const stranger = { ...slackMessage('let me in'), team_id: 'T0STRANGER' };
    for (const query of ['', '?tenant_id=default-tenant', '?tenant_id=acme']) {
      const res = await postSigned(gateway.url, SECRET, stranger, { query }).expect(403);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject({
        type: 'urn:svc:problem:slack-workspace-not-mapped',
        detail: 'the Slack workspace T0STRANGER is not mapped to a tenant (SVC_SLACK_TENANTS)',
      });
    }
    for (const tenant of ['default-tenant', 'acme']) {
      expect(
        (await outbox(tenant)).filter(
          (d) => d.event_id === `T0STRANGER:C0GENERAL:${stranger.event.ts}`,
        ),
      ).toEqual([]);
    }
  });

  it('posts the reply to a generic chatb event as a Teams message with an Adaptive Card', async () => {
    const event = generic({ text: 'status of the build?' });
    await postSigned(gateway.url, SECRET, event, { headers: 'neutral' }).expect(200);
    await waitUntil(
      () => chat.received(TEAMS_PATH, (b) => messageText(b) === 'status of the build?').length > 0,
      'the reply reaches the Teams stand-in',
    );
    const [call] = chat.received(TEAMS_PATH, (b) => messageText(b) === 'status of the build?');
    expect(call.body).toEqual({
      type: 'message',
      attachments: [
        {
          contentType: 'application/vnd.microsoft.card.adaptive',
          contentUrl: null,
          content: {
            $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
            type: 'AdaptiveCard',
            version: '1.4',
            body: [{ type: 'TextBlock', text: 'status of the build?', wrap: true }],
          },
        },
      ],
    });
  });

  it('continues one conversation across messages', async () => {
    const first = await postSigned(
      gateway.url,
      SECRET,
      generic({ conversation_id: 'room-42', text: 'first' }),
      { query: '?wait=true' },
    ).expect(200);
    const second = await postSigned(
      gateway.url,
      SECRET,
      generic({ conversation_id: 'room-42', text: 'second' }),
      { query: '?wait=true' },
    ).expect(200);
    expect(second.body.session_id).toBe(first.body.session_id);
    const session = await request(gateway.url)
      .get(`/v1/sessions/${first.body.session_id as string}?tenant_id=acme`)
      .set(auth)
      .expect(200);
    expect((session.body.messages as Array<{ content: string }>).map((m) => m.content)).toEqual([
      'first',
      'first',
      'second',
      'second',
    ]);
    const other = await postSigned(
      gateway.url,
      SECRET,
      generic({ conversation_id: 'room-43', text: 'x' }),
    ).expect(200);
    expect(other.body.session_id).not.toBe(first.body.session_id);
  });

  it('returns the reply with ?wait=true', async () => {
    const res = await postSigned(gateway.url, SECRET, generic({ text: 'ping' }), {
      query: '?wait=true',
    }).expect(200);
    expect(res.body).toMatchObject({
      ok: true,
      duplicate: false,
      reply: 'ping',
      run_status: 'completed',
      status: expect.stringMatching(/^(pending|delivered)$/),
    });
  });

  it('ignores bot messages, edits and other events without running anything', async () => {
    const bot = slackMessage('I am the bot');
    Object.assign(bot.event, { bot_id: 'B0BOT', subtype: 'bot_message' });
    const edit = slackMessage('edited');
    Object.assign(edit.event, { subtype: 'message_changed' });
    for (const payload of [bot, edit]) {
      const res = await postSigned(gateway.url, SECRET, payload, {
        query: '?tenant_id=quiet',
      }).expect(200);
      expect(res.body).toEqual({ ok: true, ignored: expect.any(String) });
    }
    expect(await audit('quiet', 'run.started')).toEqual([]);
    expect(await outbox('quiet')).toEqual([]);
  });

  it('rejects a bad signature, a stale timestamp, a replayed body and a missing signature with 401 and starts no run', async () => {
    const event = generic({ tenant_id: 'attacked', text: 'do something bad' });
    const body = JSON.stringify(event);
    const now = Math.floor(Date.now() / 1000);
    const post = (headers: Record<string, string>) =>
      request(gateway.url)
        .post(WEBHOOK)
        .set('Content-Type', 'application/json')
        .set(headers)
        .send(body);

    const stale = signatureHeaders(SECRET, body, { timestamp: now - 600 });
    const attempts: Array<[string, Record<string, string>]> = [
      ['wrong secret', signatureHeaders(SECRET, body, { secret: 'not-the-secret' })],
      ['stale timestamp', stale],
      ['replayed with a new timestamp', { ...stale, 'X-Slack-Request-Timestamp': String(now) }],
      ['missing signature', { 'X-Slack-Request-Timestamp': String(now) }],
      ['no headers at all', {}],
      ['garbage', { 'X-Signature': 'v0=zz', 'X-Timestamp': 'yesterday' }],
    ];
    for (const [what, headers] of attempts) {
      const res = await post(headers);
      expect({ what, status: res.status }).toEqual({ what, status: 401 });
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject({ type: 'urn:svc:problem:invalid-signature', status: 401 });
    }
    // An API key is no substitute for the signature once a secret is set.
    expect((await post(auth)).status).toBe(401);
    // The same body, signed properly, would have been accepted: the rejections were the signature's.
    const tampered = JSON.stringify({ ...event, text: 'tampered' });
    const res = await request(gateway.url)
      .post(WEBHOOK)
      .set('Content-Type', 'application/json')
      .set(signatureHeaders(SECRET, body))
      .send(tampered);
    expect(res.status).toBe(401);

    expect(await audit('attacked', 'run.started')).toEqual([]);
    expect(await outbox('attacked')).toEqual([]);
    expect(chat.calls.filter((c) => JSON.stringify(c.body).includes('bad'))).toEqual([]);
    const failures = await request(gateway.url)
      .get('/v1/audit?kind=auth.failed&limit=20')
      .set(auth)
      .expect(200);
    expect(failures.body.events[0]).toMatchObject({
      kind: 'auth.failed',
      details: { status: 401, path: WEBHOOK },
    });
  });

  it('runs an event once when it arrives 5 times, one after another or all at once', async () => {
    const sequential = generic({ text: 'say it once' });
    const answers: Array<{ duplicate: boolean; id: string }> = [];
    for (let i = 0; i < 5; i++) {
      const res = await postSigned(gateway.url, SECRET, sequential).expect(200);
      answers.push(res.body as { duplicate: boolean; id: string });
    }
    expect(answers.map((a) => a.duplicate)).toEqual([false, true, true, true, true]);
    expect(new Set(answers.map((a) => a.id)).size).toBe(1);

    const concurrent = generic({ text: 'say it once, concurrently' });
    const responses = await Promise.all(
      Array.from({ length: 5 }, () => postSigned(gateway.url, SECRET, concurrent)),
    );
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(responses.filter((r) => r.body.duplicate === false)).toHaveLength(1);

    // A Slack retry is the same body again, with X-Slack-Retry-Num.
    const slack = slackMessage('slack retries too');
    for (let retry = 0; retry < 5; retry++) {
      await postSigned(gateway.url, SECRET, slack, { query: '?tenant_id=acme' }).expect(200);
    }

    const texts = ['say it once', 'say it once, concurrently', 'slack retries too'];
    const delivered = () =>
      chat.calls.filter((c) => texts.includes(messageText(c.body) ?? '')).length;
    await waitUntil(() => delivered() >= 3, 'all three replies are delivered');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(delivered()).toBe(3);
    const started = await audit('acme', 'run.started');
    for (const id of [answers[0].id, responses.find((r) => !r.body.duplicate)!.body.id]) {
      expect(started.filter((e) => e.details.run_id === id)).toHaveLength(1);
    }
  });

  it('sends model text without mass mentions', async () => {
    await postSigned(gateway.url, SECRET, slackMessage('<!channel> deploy is done @here'), {
      query: '?tenant_id=acme',
    }).expect(200);
    await waitUntil(
      () => slackTexts().some((t) => t?.includes('deploy is done')),
      'the reply is delivered',
    );
    expect(slackTexts().find((t) => t?.includes('deploy is done'))).toBe(
      '&lt;!channel&gt; deploy is done @\u200Bhere',
    );
  });

  it('refuses malformed events with 400 and field errors', async () => {
    const missing = await postSigned(gateway.url, SECRET, { tenant_id: 'acme' }).expect(400);
    expect(missing.body.type).toBe('urn:svc:problem:validation');
    expect((missing.body.errors as Array<{ path: string }>).map((e) => e.path)).toEqual(
      expect.arrayContaining(['channel', 'conversation_id', 'user', 'text', 'event_id']),
    );
    const channel = await postSigned(gateway.url, SECRET, generic({ channel: 'irc' })).expect(400);
    expect(channel.body.errors).toEqual([
      { path: 'channel', message: 'channel must be one of chata, chatb' },
    ]);
    await postSigned(gateway.url, SECRET, generic(), { query: '?tenant_id=other' }).expect(400);
    await postSigned(gateway.url, SECRET, [generic()]).expect(400);
  });

  it('reports adapters and the outbox on its public health endpoint', async () => {
    const health = () => request(gateway.url).get('/v1/messaging/webhook/health').expect(200);
    await waitUntil(
      async () => (await health()).body.outbox.pending + (await health()).body.outbox.running === 0,
      'every earlier reply is delivered',
    );
    const res = await health();
    expect(res.body).toEqual({
      status: 'ok',
      signature_required: true,
      adapters: { chata: { configured: true }, chatb: { configured: true } },
      outbox: { pending: 0, running: 0, failed: 0, oldest_pending_age_ms: null },
    });
    expect(JSON.stringify(res.body)).not.toContain(chat.url);
  });
});
