import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Logger } from '@nestjs/common';
import request from 'supertest';
import {
  MockModelServer,
  type RecordedRequest,
  type Step,
} from '../src/providers/testing/mock-model-server.js';
import { Tracing } from '../src/platform/telemetry/tracing.service.js';
import { BACKENDS } from './support/backends.js';
import { ChatServer, SLACK_PATH } from './support/chat-server.js';
import { runSvc } from './support/cli.js';
import { LogCapture } from './support/gateway.js';
import { gatewayForSuite } from './support/suite.js';
import { waitUntil } from './support/chat-server.js';
import { WEBHOOK } from './support/slack-events.js';

const ROOT = 'secret-echo-root-key-4711';
/** A provider key with characters that JSON and URLs spell differently. */
const PROVIDER_KEY = 'sk-Live/9f3K+q81"Zp\\X=mW7c2R';
const auth = { Authorization: `Bearer ${ROOT}` };

// nestjs-pino keeps one logger per process: every gateway of this file logs here.
const logs = new LogCapture();

/** The ways an upstream might hand a secret back, as a secret-bearing value (`user:secret`). */
function echoes(secret: string): string {
  return [
    `raw ${secret}`,
    `json ${JSON.stringify({ key: secret })}`,
    `url ${encodeURIComponent(secret)}`,
    `upper ${secret.toUpperCase()}`,
    `cut ${secret.slice(0, 13)}…`,
    `basic ${Buffer.from(`user:${secret}`).toString('base64')}`,
  ].join('\n');
}

/** What must not be found: the spellings above (the base64 without its `user:` groups). */
function spellings(secret: string): string[] {
  return [
    secret,
    JSON.stringify(secret).slice(1, -1),
    encodeURIComponent(secret),
    secret.toUpperCase(),
    Buffer.from(`user:${secret}`).toString('base64').slice(8, -4),
  ];
}

/** Fails naming the place and the piece when any 8 characters of any spelling are in `text`. */
function expectNoPiece(where: string, text: string, secret: string): void {
  const folded = text.toLowerCase();
  const found: string[] = [];
  for (const spelling of spellings(secret)) {
    for (let i = 0; i + 8 <= spelling.length; i++) {
      const piece = spelling.slice(i, i + 8).toLowerCase();
      if (folded.includes(piece)) found.push(piece);
    }
  }
  expect({ where, found }).toEqual({ where, found: [] });
}

const lastUserText = (req: RecordedRequest): string => {
  const messages = (req.body as { messages?: Array<{ role: string; content: string }> }).messages;
  return [...(messages ?? [])].reverse().find((m) => m.role === 'user')?.content ?? '';
};

/** Echoes the credential it was sent, as a 401, a 500 or a 200 that is not JSON. */
const echoingModel: Step = (req, res) => {
  const key = String(req.headers.authorization ?? '').slice('Bearer '.length);
  const said = `Incorrect API key provided (${String(req.headers.authorization)}):\n${echoes(key)}`;
  const prompt = lastUserText(req);
  const status = prompt === 'unauthorized' ? 401 : prompt === 'busy' ? 500 : 200;
  if (status === 200 && prompt !== 'not json') {
    const content = prompt === 'what is my key?' ? said : prompt;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content } }] }));
    return;
  }
  res.writeHead(status, { 'content-type': 'text/plain' });
  res.end(said);
};

describe.each(BACKENDS)('no secret comes back in any spelling (%s)', (backend) => {
  let model: MockModelServer;
  const chat = new ChatServer();
  beforeAll(async () => {
    model = await MockModelServer.start(echoingModel);
    await chat.start();
    // The chat system refuses and quotes the (secret) webhook address back in other spellings.
    chat.script(SLACK_PATH, () => ({ status: 404, body: `no_service: ${echoes(SLACK_PATH)}` }));
  });
  afterAll(async () => {
    await model.close();
    await chat.close();
  });
  const gateway = gatewayForSuite(
    backend,
    () => ({
      SVC_API_KEY: ROOT,
      SVC_PROVIDER_URL: `${model.url}/v1`,
      SVC_PROVIDER_API_KEY: PROVIDER_KEY,
      SVC_CHATA_WEBHOOK: chat.slackUrl,
      SVC_OUTBOX_POLL_MS: '50',
    }),
    { logs },
  );
  const get = async (path: string) =>
    (await request(gateway.url).get(path).set(auth).expect(200)).text;
  const spans = () =>
    JSON.stringify(
      gateway.app
        .get(Tracing)
        .recentSpans()
        .map((span) => ({
          name: span.name,
          attributes: span.attributes,
          status: span.status,
          events: span.events,
        })),
    );

  it.each([
    ['unauthorized', 'the model endpoint answered 401'],
    ['busy', 'the model endpoint answered 500 after 3 attempts'],
    ['not json', "the model endpoint's answer is not JSON"],
  ])(
    'answers a model endpoint that echoes its key (%s) with a classified 502, nowhere quoting it',
    async (prompt, detail) => {
      const runId = `echo-${prompt.replace(' ', '-')}-${backend}`;
      const res = await request(gateway.url)
        .post('/v1/agent/run')
        .set(auth)
        .send({ tenant_id: 'acme', prompt, run_id: runId });
      expect(res.status).toBe(502);
      expect(res.body).toMatchObject({ type: 'urn:svc:problem:provider-failed', detail });

      const places: Array<[string, string]> = [
        ['502 body', res.text],
        ['run record', await get(`/v1/runs/${runId}?tenant_id=acme`)],
        ['studio', await get('/v1/studio?tenant_id=acme')],
        ['audit', await get('/v1/audit?tenant_id=acme&limit=1000')],
        ['spans', spans()],
        ['logs', logs.text],
      ];
      for (const [where, text] of places) expectNoPiece(where, text, PROVIDER_KEY);
      expect(JSON.parse(await get(`/v1/runs/${runId}?tenant_id=acme`))).toMatchObject({
        status: 'failed',
        error: { status: 502, detail },
      });
      // The operator still reads what the endpoint said, with the key taken out.
      expect(logs.text).toContain('Incorrect API key provided (Bearer ***');
    },
  );

  it('takes the key out of an answer that echoes it, before the run keeps or shows it', async () => {
    const runId = `echo-answer-${backend}`;
    const res = await request(gateway.url)
      .post('/v1/agent/run')
      .set(auth)
      .send({ tenant_id: 'acme', prompt: 'what is my key?', run_id: runId })
      .expect(200);
    expect(res.body).toMatchObject({ status: 'completed' });
    expect(res.body.text).toContain('Incorrect API key provided (Bearer ***');
    const places: Array<[string, string]> = [
      ['answer', res.text],
      ['run record', await get(`/v1/runs/${runId}?tenant_id=acme`)],
      ['session', await get(`/v1/sessions/${res.body.session_id as string}?tenant_id=acme`)],
      ['studio', await get('/v1/studio?tenant_id=acme')],
      ['logs', logs.text],
    ];
    for (const [where, text] of places) expectNoPiece(where, text, PROVIDER_KEY);
  });

  it('scrubs every log line as it is written, whoever logs what', async () => {
    const logger = new Logger('SecretEchoTest');
    logger.warn(`a careless line: ${encodeURIComponent(PROVIDER_KEY)} ${chat.slackUrl}`);
    logger.warn({ err: new Error(`careless error: ${PROVIDER_KEY.toUpperCase()}`) }, 'oops');
    await waitUntil(() => logs.text.includes('careless error'), 'both lines are written');
    expect(logs.text).toContain('a careless line: ***');
    expectNoPiece('logs', logs.text, PROVIDER_KEY);
    expectNoPiece('logs', logs.text, SLACK_PATH);
  });

  it('keeps a secret webhook address out of last_error, the audit trail, logs and spans', async () => {
    const res = await request(gateway.url)
      .post(WEBHOOK)
      .set(auth)
      .send({
        tenant_id: 'acme',
        channel: 'chata',
        conversation_id: 'c1',
        user: 'erin',
        text: 'reply to a refusing chat',
        event_id: `echo-webhook-${backend}`,
      })
      .expect(200);
    const id = res.body.id as string;
    const entry = async () => {
      const listed = await get('/v1/messaging/outbox?tenant_id=acme');
      return (JSON.parse(listed) as { deliveries: Array<Record<string, unknown>> }).deliveries.find(
        (d) => d.id === id,
      );
    };
    await waitUntil(async () => (await entry())?.status === 'failed', 'the delivery fails');
    expect(await entry()).toMatchObject({ last_error: 'webhook answered HTTP 404', attempts: 1 });
    const places: Array<[string, string]> = [
      ['outbox', await get('/v1/messaging/outbox?tenant_id=acme')],
      ['audit', await get('/v1/audit?tenant_id=acme&kind=messaging.delivery_failed')],
      ['spans', spans()],
      ['logs', logs.text],
    ];
    for (const [where, text] of places) expectNoPiece(where, text, SLACK_PATH);
    expect(logs.text).toContain('no_service');
  });
});

describe('configuration errors', () => {
  it.each([
    [{ SVC_PROVIDER_URL: 'http://svc:hunter2-model@models.internal:99999/v1' }, 'SVC_PROVIDER_URL'],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel:hunter2-otel@collector:99999' }, 'OTEL_'],
    [{ SVC_PROVIDER_URL: 'ftp://svc:hunter2/with-slash@models.internal/v1' }, 'SVC_PROVIDER_URL'],
    // A header list holds collector credentials: neither it nor a piece of it is shown.
    [{ OTEL_EXPORTER_OTLP_HEADERS: 'authorization Bearer hunter2' }, 'OTEL_EXPORTER_OTLP_HEADERS'],
    [{ OTEL_EXPORTER_OTLP_HEADERS: 'x-a=1,hunter2' }, 'OTEL_EXPORTER_OTLP_HEADERS'],
  ])('stop with exit 2 and a line without the password (%j)', async (env, name) => {
    const result = await runSvc(['serve'], env);
    expect(result.code).toBe(2);
    const lines = result.stderr.split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`svc: invalid configuration: ${name}`);
    expect(lines[0]).not.toContain('hunter2');
  });

  it('hides the userinfo of --otel-endpoint too', async () => {
    const result = await runSvc(['serve', '--otel-endpoint', 'http://o:hunter2@collector:99999']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--otel-endpoint');
    expect(result.stderr).not.toContain('hunter2');
  });
});
