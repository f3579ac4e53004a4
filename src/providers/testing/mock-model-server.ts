import {
  createServer,
  type IncomingHttpHeaders,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body (the raw text when it is not JSON). */
  body: unknown;
}

export type Step = (request: RecordedRequest, res: ServerResponse) => void;

/** Answers with a JSON body. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Step {
  return (_request, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };
}

/**
 * Answers with server-sent events: each of `events` as one `data:` line (objects as JSON), one
 * every `everyMs`, then ends the response, or with `breakAfter` destroys the connection after
 * that many events (a stream broken off).
 */
export function sse(
  events: Array<unknown>,
  options: { everyMs?: number; breakAfter?: number } = {},
): Step {
  return (_request, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    let sent = 0;
    const next = () => {
      if (res.destroyed) return;
      if (options.breakAfter !== undefined && sent >= options.breakAfter) {
        res.destroy();
        return;
      }
      if (sent >= events.length) {
        res.end();
        return;
      }
      const event = events[sent++];
      res.write(`data: ${typeof event === 'string' ? event : JSON.stringify(event)}\n\n`);
      setTimeout(next, options.everyMs ?? 0);
    };
    next();
  };
}

/** Never answers: the client's deadline has to end the call. */
export const hang: Step = () => undefined;

/** Stands in for a model endpoint on 127.0.0.1: answers with scripted steps, records requests. */
export class MockModelServer {
  readonly requests: RecordedRequest[] = [];

  private constructor(
    private readonly server: Server,
    private readonly steps: Step[],
  ) {}

  /** Step i answers request i; the last step answers every request after that. */
  static async start(...steps: Step[]): Promise<MockModelServer> {
    const server = createServer();
    const mock = new MockModelServer(server, steps);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // keep the raw text
        }
        const request = {
          method: req.method ?? '',
          path: req.url ?? '',
          headers: req.headers,
          body,
        };
        mock.requests.push(request);
        const step = mock.steps[Math.min(mock.requests.length, mock.steps.length) - 1] ?? hang;
        step(request, res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return mock;
  }

  get url(): string {
    const { port } = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${port}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
