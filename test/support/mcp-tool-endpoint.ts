import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface McpToolEndpoint {
  url: string;
  close(): Promise<void>;
}

/** An HTTP tool answering with MCP content blocks, which the MCP host passes through. */
export const MCP_CONTENT = {
  content: [
    { type: 'text', text: 'a red dot' },
    { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
    {
      type: 'resource',
      resource: { uri: 'file:///orders/A-17.json', mimeType: 'application/json', text: '{}' },
    },
  ],
};

/**
 * Tenants' HTTP tools for the MCP tests: `/echo` answers `{received: <arguments>}`, `/content`
 * MCP content blocks, `/is-error` a tool-level error, `/fail` HTTP 500.
 */
export async function startMcpToolEndpoint(): Promise<McpToolEndpoint> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null');
      const answers: Record<string, [number, unknown]> = {
        '/echo': [200, { received: body }],
        '/content': [200, MCP_CONTENT],
        '/is-error': [200, { is_error: true, message: 'no such order' }],
        '/fail': [500, { error: 'boom' }],
      };
      const [status, answer] = answers[req.url ?? ''] ?? [404, { error: 'no route' }];
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
