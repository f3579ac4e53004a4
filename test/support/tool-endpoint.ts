import { type IncomingHttpHeaders, type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedCall {
  path: string;
  method: string;
  headers: IncomingHttpHeaders;
  body: unknown;
  /** Epoch ms when the request was read, and when its answer was sent. */
  receivedAt: number;
  answeredAt?: number;
  /** Epoch ms when the caller closed the connection before an answer was sent. */
  abandonedAt?: number;
}

export interface ToolEndpoint {
  /** `http://127.0.0.1:<port>`; append a route below. */
  url: string;
  received: ReceivedCall[];
  close(): Promise<void>;
}

/**
 * A local HTTP server standing in for tenants' tool endpoints. Routes:
 * `/echo` answers `{received: <body>}`, `/is-error` a tool-level error, `/fail` HTTP 500,
 * `/slow` answers after 3 s, `/sleep/<ms>` `{slept: ms, received}` after ms, `/hold` never
 * answers (until closed), `/hold-first[/<tag>]` holds only the first call of that path, `/not-json` plain text, `/huge` 2 MiB of JSON, `/empty` 204.
 */
export async function startToolEndpoint(): Promise<ToolEndpoint> {
  const received: ReceivedCall[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const body: unknown = text ? JSON.parse(text) : undefined;
      const path = req.url ?? '/';
      const call: ReceivedCall = {
        path,
        method: req.method ?? '',
        headers: req.headers,
        body,
        receivedAt: Date.now(),
      };
      received.push(call);
      res.on('finish', () => (call.answeredAt = Date.now()));
      res.on('close', () => {
        if (call.answeredAt === undefined) call.abandonedAt = Date.now();
      });
      const json = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      const sleep = /^\/sleep\/(\d+)$/.exec(path);
      if (sleep) {
        const timer = setTimeout(
          () => json(200, { slept: Number(sleep[1]), received: body }),
          Number(sleep[1]),
        );
        res.on('close', () => clearTimeout(timer));
        return;
      }
      if (/^\/hold-first(\/[\w-]+)?$/.test(path)) {
        // The first call never gets an answer (its caller is about to die); later ones do.
        if (received.filter((earlier) => earlier.path === path).length === 1) return;
        return json(200, { released: true });
      }
      switch (path) {
        case '/echo':
          return json(200, { received: body });
        case '/is-error':
          return json(200, { is_error: true, message: 'no such order' });
        case '/fail':
          return json(500, { error: 'boom' });
        case '/slow': {
          const timer = setTimeout(() => json(200, { late: true }), 3000);
          res.on('close', () => clearTimeout(timer));
          return;
        }
        case '/hold':
          return;
        case '/not-json':
          res.writeHead(200, { 'content-type': 'text/plain' });
          return res.end('hello');
        case '/huge':
          return json(200, { pad: 'x'.repeat(2 * 1024 * 1024) });
        case '/empty':
          res.writeHead(204);
          return res.end();
        default:
          return json(404, { error: 'no route' });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Registers `name` in the tenant's toolset `ops` of the gateway at `gatewayUrl` as an HTTP tool
 * that calls `route` of this endpoint, accepting any arguments.
 */
export async function registerRouteTool(
  endpoint: ToolEndpoint,
  gatewayUrl: string,
  headers: Record<string, string>,
  tool: { tenant: string; name: string; route: string },
): Promise<void> {
  const res = await fetch(`${gatewayUrl}/v1/toolsets/ops/tools/${tool.name}`, {
    method: 'PUT',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({
      tenant_id: tool.tenant,
      description: `calls ${tool.route}`,
      parameters: { type: 'object', properties: {}, additionalProperties: true },
      endpoint: { url: `${endpoint.url}${tool.route}` },
    }),
  });
  if (res.status !== 200)
    throw new Error(`registering ${tool.name}: ${res.status} ${await res.text()}`);
}
