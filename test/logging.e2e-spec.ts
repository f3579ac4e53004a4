import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { BACKENDS } from './support/backends.js';
import { LogCapture } from './support/gateway.js';
import { gatewayForSuite } from './support/suite.js';
import { StandInController } from './support/stand-in.controller.js';

const KEY = 'logging-test-secret-key';
const WRONG_KEY = 'logging-test-wrong-key';

const logs = new LogCapture();

describe.each(BACKENDS)('structured logs (%s)', (backend) => {
  const gateway = gatewayForSuite(
    backend,
    { SVC_API_KEY: KEY },
    { logs, controllers: [StandInController] },
  );

  it('gives every response an X-Request-Id and logs the request under that id', async () => {
    const res = await request(gateway.url)
      .get('/info')
      .set('Authorization', `Bearer ${KEY}`)
      .expect(200);
    const id = res.headers['x-request-id'];
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const line = logs.records().find((r) => (r.req as { id?: string } | undefined)?.id === id);
    expect(line).toMatchObject({
      msg: 'request completed',
      req: { method: 'GET', path: '/info' },
      res: { status: 200 },
    });
  });

  it('logs a refused body under its request id, as any other answer', async () => {
    const refused = [
      ['text/plain', 'tenant_id=acme', 415],
      ['application/json', '{"tenant_id": ', 400],
    ] as const;
    for (const [type, body, status] of refused) {
      const res = await request(gateway.url)
        .post('/stand-in/tenant')
        .set('Authorization', `Bearer ${KEY}`)
        .set('Content-Type', type)
        .send(body)
        .expect(status);
      const id = res.headers['x-request-id'];
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      const line = logs.records().find((r) => (r.req as { id?: string } | undefined)?.id === id);
      expect(line).toMatchObject({
        req: { method: 'POST', path: '/stand-in/tenant' },
        res: { status },
      });
    }
  });

  it('keeps a well-formed incoming request id and replaces a malformed one', async () => {
    const kept = await request(gateway.url)
      .get('/healthz')
      .set('X-Request-Id', 'lb-1234.abc:9')
      .expect(200);
    expect(kept.headers['x-request-id']).toBe('lb-1234.abc:9');
    const replaced = await request(gateway.url)
      .get('/healthz')
      .set('X-Request-Id', 'bad id <script>')
      .expect(200);
    expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('never writes a credential to the log, whatever the request did', async () => {
    await request(gateway.url).get('/info').set('Authorization', `Bearer ${KEY}`);
    await request(gateway.url).get('/info').set('X-API-Key', KEY);
    await request(gateway.url).get('/info').set('Authorization', `Bearer ${WRONG_KEY}`);
    await request(gateway.url).get('/stand-in/crash').set('X-API-Key', KEY);
    await request(gateway.url)
      .post('/stand-in/tenant')
      .set('Authorization', `Bearer ${KEY}`)
      .set('Content-Type', 'application/json')
      .send('{broken');
    const text = logs.text;
    expect(text.length).toBeGreaterThan(0);
    expect(text).not.toContain(KEY);
    expect(text).not.toContain(WRONG_KEY);
    expect(text).toContain('request failed: GET /stand-in/crash');
    // The crash quotes a connection string with a password: it is scrubbed from message and stack.
    expect(text).toContain('postgres://***@db/x');
    expect(text).not.toContain('user:pw@');
  });

  it('logs one JSON object per line', () => {
    for (const line of logs.lines) expect(() => JSON.parse(line) as unknown).not.toThrow();
  });
});
