import { type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ReceivedCall, ToolEndpoint } from './tool-endpoint.js';

export interface CountingEndpoint extends ToolEndpoint {
  /** Calls on `/hold` answered by nobody yet. */
  held(): number;
  /** The most `/hold` calls that were ever waiting at once. */
  mostHeld(): number;
  /** Answers up to `count` waiting `/hold` calls (oldest first) with `{released: true}`. */
  release(count?: number): void;
}

/**
 * A tool endpoint that counts what reaches it. Routes: `/count` answers `{ok: true}`,
 * `/bytes/<n>` answers `{pad: "xxx…"}` of about n bytes, `/hold` waits until the test releases
 * it (and keeps the highest number of calls waiting at once).
 */
export async function startCountingEndpoint(): Promise<CountingEndpoint> {
  const received: ReceivedCall[] = [];
  const waiting: ServerResponse[] = [];
  let most = 0;
  const json = (res: ServerResponse, status: number, value: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(value));
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const path = req.url ?? '/';
      received.push({
        path,
        method: req.method ?? '',
        headers: req.headers,
        body: text ? (JSON.parse(text) as unknown) : undefined,
        receivedAt: Date.now(),
      });
      const bytes = /^\/bytes\/(\d+)$/.exec(path);
      if (bytes) return json(res, 200, { pad: 'x'.repeat(Number(bytes[1])) });
      if (path === '/count') return json(res, 200, { ok: true });
      if (path === '/hold') {
        waiting.push(res);
        most = Math.max(most, waiting.length);
        return;
      }
      json(res, 404, { error: 'no route' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    held: () => waiting.length,
    mostHeld: () => most,
    release: (count = waiting.length) => {
      for (const res of waiting.splice(0, count)) json(res, 200, { released: true });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
