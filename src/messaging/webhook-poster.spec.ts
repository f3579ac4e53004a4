import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { postWebhook } from './webhook-poster.js';

/** A local chat webhook whose answer depends on the path. */
describe('postWebhook', () => {
  let server: Server;
  let base = '';
  const received: unknown[] = [];
  const keys: Array<string | undefined> = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let text = '';
      req.on('data', (chunk: Buffer) => (text += chunk.toString()));
      req.on('end', () => {
        received.push(JSON.parse(text));
        keys.push(req.headers['idempotency-key'] as string | undefined);
        const answers: Record<string, () => void> = {
          '/ok': () => res.writeHead(200).end('ok'),
          '/accepted': () => res.writeHead(202).end(),
          '/down': () => res.writeHead(503).end('maintenance'),
          '/busy': () => res.writeHead(429, { 'retry-after': '7' }).end('rate_limited'),
          '/bad': () => res.writeHead(400).end(`invalid_payload at ${base}/bad`),
          '/moved': () => res.writeHead(302, { location: 'http://elsewhere.test/' }).end(),
          '/slow': () => setTimeout(() => res.writeHead(200).end('late'), 1000),
        };
        // An unknown hook echoes its own path back in other spellings, as some chat systems do.
        const echo = () =>
          res
            .writeHead(404)
            .end(
              `no_service ${encodeURIComponent(req.url ?? '')} ${(req.url ?? '').toUpperCase()} ${(req.url ?? '').slice(0, 20)}`,
            );
        (answers[req.url ?? ''] ?? echo)();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('posts the message as JSON and reports any 2xx as delivered', async () => {
    await expect(postWebhook(`${base}/ok`, { text: 'hi' })).resolves.toEqual({
      ok: true,
      status: 200,
    });
    expect(received.at(-1)).toEqual({ text: 'hi' });
    await expect(postWebhook(`${base}/accepted`, {})).resolves.toEqual({ ok: true, status: 202 });
  });

  it('sends the idempotency key as Idempotency-Key, and none without one', async () => {
    await postWebhook(`${base}/ok`, {}, { idempotencyKey: 'acme/msg-1' });
    expect(keys.at(-1)).toBe('acme/msg-1');
    await postWebhook(`${base}/ok`, {});
    expect(keys.at(-1)).toBeUndefined();
  });

  it('marks 5xx and 429 retryable, with Retry-After', async () => {
    await expect(postWebhook(`${base}/down`, {})).resolves.toEqual({
      ok: false,
      retryable: true,
      retryAfterMs: undefined,
      error: 'webhook answered HTTP 503',
      upstream: 'maintenance',
    });
    await expect(postWebhook(`${base}/busy`, {})).resolves.toMatchObject({
      ok: false,
      retryable: true,
      retryAfterMs: 7000,
    });
  });

  it('does not retry other 4xx or follow redirects, and never names the address', async () => {
    const bad = await postWebhook(`${base}/bad`, {});
    // The reason only; the answer (which quotes the address) is for the log, scrubbed.
    expect(bad).toMatchObject({ ok: false, retryable: false, error: 'webhook answered HTTP 400' });
    if (bad.ok) throw new Error('unreachable');
    expect(bad.upstream).toContain('invalid_payload at');
    expect(bad.upstream).not.toContain('/bad');
    await expect(postWebhook(`${base}/moved`, {})).resolves.toMatchObject({
      ok: false,
      retryable: false,
      error: 'webhook answered HTTP 302',
    });
  });

  it('keeps every spelling of a secret webhook path out of the outcome', async () => {
    const path = '/services/T0AB12/B0CD34/secretTokenXyz987';
    const outcome = await postWebhook(`${base}${path}`, {});
    expect(outcome).toMatchObject({
      ok: false,
      retryable: false,
      error: 'webhook answered HTTP 404',
    });
    const text = JSON.stringify(outcome).toLowerCase();
    expect(text).toContain('no_service');
    for (const spelling of [path, encodeURIComponent(path)]) {
      for (let i = 0; i + 8 <= spelling.length; i++) {
        expect(text).not.toContain(spelling.slice(i, i + 8).toLowerCase());
      }
    }
  });

  it('retries an unreachable webhook or one that does not answer in time', async () => {
    const closed = await new Promise<number>((resolve) => {
      const probe = createServer();
      probe.listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const unreachable = await postWebhook(`http://127.0.0.1:${closed}/secret-path`, {});
    expect(unreachable).toMatchObject({ ok: false, retryable: true, error: 'webhook unreachable' });
    expect(JSON.stringify(unreachable)).not.toContain('secret-path');
    await expect(postWebhook(`${base}/slow`, {}, { timeoutMs: 100 })).resolves.toEqual({
      ok: false,
      retryable: true,
      error: 'webhook did not answer within 100 ms',
    });
  });

  it('does not retry a webhook address the egress policy refuses (metadata, link-local)', async () => {
    const refused = await postWebhook('http://169.254.169.254/hooks/secret-path', {});
    expect(refused).toEqual({
      ok: false,
      retryable: false,
      error: 'webhook address refused by the egress policy',
    });
  });
});
