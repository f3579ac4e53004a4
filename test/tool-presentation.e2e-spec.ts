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
    _meta: {
      'example.com/trace': 'abc-123',
      // Reserved by 2025-11-25's rule and by 2025-06-18's: the protocol's, never a tool's.
      'io.modelcontextprotocol/serverInfo': 'spoofed',
      'tools.mcp.com/x': 'spoofed',
    },
  },
  '/loose': { total: 1, note: 'anything' },
  '/failed': { content: [{ type: 'text', text: 'no such order' }], isError: true },
  '/document': { total: 2, content: ['line 1', 'line 2'] },
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

/** As long as MCP lets a tool name be (SEP-986): 128 of `A-Za-z0-9_.-`. */
const LONGEST_NAME = `order.total_${'x'.repeat(111)}-v1.2`;

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
    // `true` as a property schema is valid JSON Schema; MCP wants objects in a listing.
    await register('loose_total', '/loose', {
      output_schema: { type: 'object', properties: { total: { type: 'number' }, note: true } },
    }).expect(200);
    await register('failed_total', '/failed').expect(200);
    await register(LONGEST_NAME, '/good', {}).expect(200);
    await register('document', '/document', {
      output_schema: {
        type: 'object',
        properties: { total: { type: 'number' }, content: { type: 'array' } },
        required: ['total', 'content'],
      },
    }).expect(200);
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

  it('refuses malformed presentation fields with a problem naming each one', async () => {
    const bad = await register('bad_fields', '/good', {
      title: 't'.repeat(257),
      annotations: { readOnlyHint: 'yes' },
      icons: [{ src: 'https://example.com/i.png', sizes: ['big'], theme: 'blue' }],
      output_schema: [],
    }).expect(400);
    expect(bad.headers['content-type']).toMatch(/^application\/problem\+json/);
    const paths = (bad.body.errors as Array<{ path: string }>).map((error) => error.path).sort();
    expect(paths).toEqual([
      'annotations.readOnlyHint',
      'icons[0].sizes',
      'icons[0].theme',
      'output_schema',
      'title',
    ]);
    const many = await register('many_icons', '/good', {
      icons: Array.from({ length: 9 }, () => ({ src: 'https://example.com/i.png' })),
    }).expect(400);
    expect(many.body.errors).toEqual([expect.objectContaining({ path: 'icons' })]);
  });

  it('makes an answer that breaks the output schema, or an MCP error answer, a tool error over REST too', async () => {
    const res = await request(gateway.url)
      .post('/v1/tools/default/broken_total')
      .set(bearer(ROOT_KEY))
      .send({ tenant_id: 'a', arguments: {} })
      .expect(200);
    expect(res.body).toMatchObject({ tool: 'broken_total', is_error: true });
    expect(res.body.result).toMatch(/does not match its output schema: total must be number/);
    const failed = await request(gateway.url)
      .post('/v1/tools/default/failed_total')
      .set(bearer(ROOT_KEY))
      .send({ tenant_id: 'a', arguments: {} })
      .expect(200);
    expect(failed.body).toMatchObject({ is_error: true, result: ANSWERS['/failed'] });
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

    it("keeps the tool's own error text, a data member named content, and boolean property schemas", async () => {
      const mcp = await connectMcp(`${gateway.url}/mcp/`, bearer(KEY_A), era);
      // The SDK client validates the whole listing: one unlisted schema shape would fail it.
      const { tools } = await mcp.client.listTools();
      expect(tools.find((tool) => tool.name === 'loose_total')?.outputSchema).toEqual({
        type: 'object',
        properties: { total: { type: 'number' }, note: {} },
      });
      expect(await mcp.client.callTool({ name: 'loose_total', arguments: {} })).toMatchObject({
        structuredContent: { total: 1, note: 'anything' },
        isError: false,
      });
      expect(await mcp.client.callTool({ name: 'failed_total', arguments: {} })).toMatchObject({
        content: [{ type: 'text', text: 'no such order' }],
        isError: true,
      });
      expect(await mcp.client.callTool({ name: 'document', arguments: {} })).toMatchObject({
        structuredContent: { total: 2, content: ['line 1', 'line 2'] },
        isError: false,
      });
      await mcp.close();
    });

    it('lists and calls a tool whose name has the 128 characters MCP allows', async () => {
      expect(LONGEST_NAME).toHaveLength(128);
      const mcp = await connectMcp(`${gateway.url}/mcp/`, bearer(KEY_A), era);
      const { tools } = await mcp.client.listTools();
      expect(tools.map((tool) => tool.name)).toContain(LONGEST_NAME);
      expect(await mcp.client.callTool({ name: LONGEST_NAME, arguments: {} })).toMatchObject({
        structuredContent: { total: 3, currency: 'EUR' },
        isError: false,
      });
      await mcp.close();
    });
  });
});
