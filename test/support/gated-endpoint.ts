import { type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GatedEndpoint {
  /** `http://127.0.0.1:<port>/gated`: every call waits there until `release()`. */
  url: string;
  /** Resolves once a call is waiting. */
  arrived(): Promise<void>;
  /** Answers every waiting call with `{released: true}`. */
  release(): void;
  /** Resolves when the next waiting call's connection closes before its release (the caller gave up). */
  abandoned(): Promise<void>;
  close(): Promise<void>;
}

/** A tool endpoint that holds its calls until the test lets them go: a slow tool, on cue. */
export async function startGatedEndpoint(): Promise<GatedEndpoint> {
  const waiting: ServerResponse[] = [];
  let onArrival: (() => void) | undefined;
  let onAbandon: (() => void) | undefined;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      waiting.push(res);
      onArrival?.();
    });
    res.on('close', () => {
      if (res.writableEnded) return;
      const index = waiting.indexOf(res);
      if (index >= 0) waiting.splice(index, 1);
      onAbandon?.();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/gated`,
    arrived: () =>
      waiting.length > 0
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            onArrival = resolve;
          }),
    release: () => {
      for (const res of waiting.splice(0)) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ released: true }));
      }
    },
    abandoned: () =>
      new Promise<void>((resolve) => {
        onAbandon = resolve;
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
