import { getEventListeners } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Agent } from 'undici';
import { UpstreamResponseTooLarge, egressFetch } from './upstream-fetch.js';

/** No deployment mark in a unit test. */
const unmarked = () => Promise.resolve({});

describe('egressFetch', () => {
  const server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    if (req.url === '/slow')
      res.write('{"never":'); // and no more
    else res.end(req.url === '/big' ? JSON.stringify({ pad: 'x'.repeat(2048) }) : '{"ok":true}');
  });
  const dispatcher = new Agent();
  let base = '';
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await dispatcher.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it("hangs one listener on the caller's long-lived signal, however many exchanges used it", async () => {
    const fetch = egressFetch(() => Promise.resolve(dispatcher), 1024, unmarked);
    const connection = new AbortController();
    for (let i = 0; i < 20; i++) {
      const response = await fetch(`${base}/small`, { signal: connection.signal });
      expect(await response.json()).toEqual({ ok: true });
    }
    const cut = await fetch(`${base}/big`, { signal: connection.signal });
    await expect(cut.text()).rejects.toBeInstanceOf(UpstreamResponseTooLarge);
    const cancelled = await fetch(`${base}/small`, { signal: connection.signal });
    await cancelled.body?.cancel();
    expect(getEventListeners(connection.signal, 'abort')).toHaveLength(1);
  });

  it('still stops an exchange when the caller aborts, before or during it', async () => {
    const fetch = egressFetch(() => Promise.resolve(dispatcher), 1024, unmarked);
    const closed = new AbortController();
    closed.abort(new Error('closed'));
    await expect(fetch(`${base}/small`, { signal: closed.signal })).rejects.toThrow();
    const closing = new AbortController();
    const response = await fetch(`${base}/slow`, { signal: closing.signal });
    closing.abort(new Error('closing'));
    await expect(response.text()).rejects.toThrow();
  });
});
