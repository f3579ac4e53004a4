import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { BACKENDS } from './support/backends.js';
import { type McpEra, connectMcp } from './support/mcp-client.js';
import { KEY_A, ROOT_KEY, bearer, writeMcpKeysFile } from './support/mcp-fixtures.js';
import { gatewayForSuite } from './support/suite.js';

/** What the endpoint answers, by path. */
const ANSWERS: Record<string, unknown> = {
  '/good': { total: 3, currency: 'EUR' },
  '/bad': { total: 'three' },
  '/meta': {
    content: [{ type: 'text', text: 'traced' }],
    _meta: { 'example.com/trace': 'abc-123', 'io.modelcontextprotocol/serverInfo': 'spoofed' },
  },
};

const PRESENTATION = {
  title: 'Order total',
  annotations: { title: 'Order total', readOnlyHint: true, openWorldHint: true },
  icons: [{ src: 'https://example.com/total.png', mimeType: 'image/png', sizes: ['48x48'] }],
  output_schema: {
    type: 'object',
    properties: { total: { type: 'number' }, currency: { type: 'string' } },
    required: ['total'],
  },
};

describe.each(BACKENDS)('HTTP tools as MCP clients see them (%s)', (backend) => {
  let endpoint = '';
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(ANSWERS[req.url ?? ''] ?? null));
    });
  });
  const gateway = gatewayForSuite(backend, () => ({
    SVC_API_KEY: ROOT_KEY,
    SVC_KEYS_FILE: writeMcpKeysFile(),
    SVC_TOOL_ALLOWED_HOSTS: '127.0.0.1',
  }));
  const register = (name: string, path: string, extra: object = PRESENTATION) =>
    request(gateway.url)
      .put(`/v1/toolsets/default/tools/${name}`)
      .set(bearer(ROOT_KEY))
      .send({
        tenant_id: 'a',
        description: `answers ${path}`,
        parameters: { type: 'object', properties: {} },
        endpoint: { url: `${endpoint}${path}` },
        ...extra,
      });

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await register('order_total', '/good').expect(200);
    await register('broken_total', '/bad').expect(200);
    await register('traced', '/meta', {}).expect(200);
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('registers a title, annotations, icons and an output schema, and shows them back', async () => {
    const toolset = await request(gateway.url)
      .get('/v1/toolsets/default?tenant_id=a')
      .set(bearer(ROOT_KEY))
      .expect(200);
    const tool = (toolset.body.tools as Array<{ name: string }>).find(
      (t) => t.name === 'order_total',
    );
    expect(tool).toMatchObject(PRESENTATION);
  });

  it('refuses an icon off https and an output schema that is no object schema, naming the field', async () => {
    const icon = await register('bad_icon', '/good', {
      icons: [{ src: 'http://intranet.local/icon.png' }],
    }).expect(400);
    expect(icon.body.errors).toEqual([expect.objectContaining({ path: 'icons[0].src' })]);
    const schema = await register('bad_schema', '/good', {
      output_schema: { type: 'string' },
    }).expect(400);
    expect(schema.body.errors?.[0]?.path).toMatch(/^output_schema/);
  });

  describe.each<McpEra>(['legacy', 'modern'])('through the %s client', (era) => {
    it('lists them, checks results against the output schema, and passes a result _meta through', async () => {
      const mcp = await connectMcp(`${gateway.url}/mcp/`, bearer(KEY_A), era);
      const { tools } = await mcp.client.listTools();
      expect(tools.find((tool) => tool.name === 'order_total')).toMatchObject({
        title: 'Order total',
        annotations: PRESENTATION.annotations,
        icons: PRESENTATION.icons,
        outputSchema: PRESENTATION.output_schema,
      });
      expect(await mcp.client.callTool({ name: 'order_total', arguments: {} })).toMatchObject({
        structuredContent: { total: 3, currency: 'EUR' },
        isError: false,
      });
      const broken = await mcp.client.callTool({ name: 'broken_total', arguments: {} });
      expect(broken.isError).toBe(true);
      expect(JSON.stringify(broken.content)).toMatch(/does not match its output schema.*total/);
      const traced = await mcp.client.callTool({ name: 'traced', arguments: {} });
      expect(traced._meta).toEqual({ 'example.com/trace': 'abc-123' });
      await mcp.close();
    });
  });
});
