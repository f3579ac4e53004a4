import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from '@jest/globals';
import { primeNodeEventStream, primedResponse, primingFrame } from './sse-priming.js';

describe('priming events', () => {
  it('are an id, the retry delay and an empty data line', () => {
    expect(primingFrame('s-1', 1000)).toBe('id: s-1\nretry: 1000\ndata: \n\n');
  });

  it('go first on a fetch-shaped event stream, and nowhere else', async () => {
    const stream = new Response('event: message\ndata: {}\n\n', {
      headers: { 'content-type': 'text/event-stream' },
    });
    const primed = primedResponse(stream, () => primingFrame('p'));
    expect(await primed.text()).toBe('id: p\nretry: 1000\ndata: \n\nevent: message\ndata: {}\n\n');
    const json = new Response('{}', { headers: { 'content-type': 'application/json' } });
    expect(primedResponse(json, () => 'never')).toBe(json);
  });

  it('go first on a Node answer that turns out to be an event stream of unknown length', async () => {
    const server = createServer((req, res) => {
      primeNodeEventStream(res, () => primingFrame('n'));
      if (req.url === '/stream') res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      else res.writeHead(200, { 'content-type': 'application/json', 'content-length': '2' });
      res.end(req.url === '/stream' ? ': keepalive\n\n' : '{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      expect(await (await fetch(`${base}/stream`)).text()).toBe(
        'id: n\nretry: 1000\ndata: \n\n: keepalive\n\n',
      );
      expect(await (await fetch(`${base}/json`)).text()).toBe('{}');
    } finally {
      server.close();
    }
  });
});
