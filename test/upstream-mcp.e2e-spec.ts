import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import request from 'supertest';
import { AuditSink } from '../src/platform/audit/audit-sink.js';
import { ToolExecutor } from '../src/tools/tool-executor.service.js';
import type { ToolProgress } from '../src/tools/tool-stream.js';
import { BACKENDS } from './support/backends.js';
import { type EverythingServer, startEverythingServer } from './support/everything-server.js';
import { LogCapture } from './support/gateway.js';
import { writeKeysFile } from './support/keys-file.js';
import { type McpEra, connectMcp } from './support/mcp-client.js';
import { freePort } from './support/net.js';
import { gatewayForSuite } from './support/suite.js';

const ROOT = 'federation-root-key';
const KEY_B = 'federation-tenant-b-key';
const as = (key: string) => ({ Authorization: `Bearer ${key}` });
const TENANT = 'acme';
/** The credential registered for the upstream: it must never come back or be logged. */
const SECRET = 'mcp-credential-7f3a9c';

type Body = Record<string, unknown>;
interface ToolBody {
  name: string;
  upstream?: string;
  parameters: Body;
}

let everything: EverythingServer;
let keysFile: string;
const logs = new LogCapture();

beforeAll(async () => {
  everything = await startEverythingServer();
  keysFile = writeKeysFile({
    keys: [{ id: 'b-ops', key: KEY_B, tenant_id: 'b', roles: ['operator'] }],
  });
});
afterAll(() => everything.close());

describe.each(BACKENDS)('upstream MCP servers as toolsets (%s)', (backend) => {
  const gateway = gatewayForSuite(
    backend,
    () => ({ SVC_API_KEY: ROOT, SVC_KEYS_FILE: keysFile, SVC_TOOL_TIMEOUT_MS: '3000' }),
    { logs },
  );
  const put = (toolset: string, name: string, body: Body) =>
    request(gateway.url)
      .put(`/v1/toolsets/${toolset}/upstreams/${name}`)
      .set(as(ROOT))
      .send({ tenant_id: TENANT, ...body });
  const call = (toolset: string, name: string, args: Body, tenant = TENANT) =>
    request(gateway.url)
      .post(`/v1/tools/${toolset}/${name}`)
      .set(as(ROOT))
      .send({ tenant_id: tenant, arguments: args });
  const describeToolset = (toolset: string) =>
    request(gateway.url).get(`/v1/toolsets/${toolset}?tenant_id=${TENANT}`).set(as(ROOT));

  beforeAll(async () => {
    await put('fed', 'everything', {
      url: everything.url,
      headers: { Authorization: `Bearer ${SECRET}`, 'X-Team': 'blue' },
    }).expect(200);
  });

  it('registers an upstream and never shows its header values back', async () => {
    const registered = await put('fed', 'everything', {
      url: everything.url,
      headers: { Authorization: `Bearer ${SECRET}`, 'X-Team': 'blue' },
    }).expect(200);
    expect(registered.body).toMatchObject({
      tenant_id: TENANT,
      toolset: 'fed',
      upstream: {
        name: 'everything',
        url: everything.url,
        header_names: ['Authorization', 'X-Team'],
        tools: null,
        prefix: 'everything_',
      },
    });
    const listed = await request(gateway.url)
      .get(`/v1/toolsets/fed/upstreams?tenant_id=${TENANT}`)
      .set(as(ROOT))
      .expect(200);
    expect(listed.body.upstreams).toEqual([registered.body.upstream]);
    const one = await request(gateway.url)
      .get(`/v1/toolsets/fed/upstreams/everything?tenant_id=${TENANT}`)
      .set(as(ROOT))
      .expect(200);
    expect(one.body.upstream).toMatchObject({
      status: 'ok',
      header_names: ['Authorization', 'X-Team'],
    });
    expect(one.body.upstream.exposed).toEqual(
      expect.arrayContaining(['everything_echo', 'everything_get-sum']),
    );
    const audit = await gateway.app.get(AuditSink).list({ tenantId: TENANT, limit: 100 });
    expect(audit.some((event) => event.kind === 'upstream.registered')).toBe(true);
    for (const text of [registered.text, listed.text, one.text, JSON.stringify(audit)]) {
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain('blue');
    }
  });

  it("lists the upstream's tools in the toolset, prefixed, beside the toolset's state", async () => {
    const res = await describeToolset('fed').expect(200);
    const tools = res.body.tools as ToolBody[];
    const echo = tools.find((tool) => tool.name === 'everything_echo');
    expect(echo).toMatchObject({
      upstream: 'everything',
      builtin: false,
      parameters: { type: 'object', properties: { message: { type: 'string' } } },
    });
    expect(tools.map((tool) => tool.name)).toContain('everything_get-sum');
    expect(res.body.upstreams).toEqual([
      expect.objectContaining({ name: 'everything', status: 'ok', omitted: [] }),
    ]);
  });

  it('calls upstream tools through POST /v1/tools, results and errors as the upstream gave them', async () => {
    const echo = await call('fed', 'everything_echo', { message: 'hello' }).expect(200);
    expect(echo.body).toMatchObject({
      tool: 'everything_echo',
      toolset: 'fed',
      is_error: false,
      result: { content: [{ type: 'text', text: 'Echo: hello' }] },
    });
    const sum = await call('fed', 'everything_get-sum', { a: 2, b: 3 }).expect(200);
    expect(sum.body.result.content[0].text).toBe('The sum of 2 and 3 is 5.');
    const image = await call('fed', 'everything_get-tiny-image', {}).expect(200);
    const types = (image.body.result.content as Body[]).map((block) => block.type);
    expect(types).toContain('image');
    // The upstream's own failure (it throws for a resource id below 1) is a tool error.
    const failed = await call('fed', 'everything_get-resource-reference', {
      resourceType: 'Text',
      resourceId: 0,
    }).expect(200);
    expect(failed.body.is_error).toBe(true);
    expect(JSON.stringify(failed.body.result)).toContain('Invalid resourceId');
    // Arguments are checked against the upstream's schema before anything is sent.
    const invalid = await call('fed', 'everything_get-sum', { a: 'two', b: 3 }).expect(422);
    expect(invalid.body.type).toBe('urn:svc:problem:invalid-arguments');
  });

  it.each<McpEra>(['legacy', 'modern'])(
    "offers upstream tools on the gateway's MCP host (%s client)",
    async (era) => {
      const mcp = await connectMcp(
        `${gateway.url}/mcp/`,
        { ...as(ROOT), 'X-Tenant-Id': TENANT, 'X-Toolset': 'fed' },
        era,
      );
      try {
        const { tools } = await mcp.client.listTools();
        const echo = tools.find((tool) => tool.name === 'everything_echo');
        expect(echo?.inputSchema).toMatchObject({ properties: { message: { type: 'string' } } });
        // The upstream's title and annotations come through as it listed them.
        expect(echo?.title).toBe('Echo Tool');
        expect(echo?.annotations).toMatchObject({ readOnlyHint: true });
        const result = await mcp.client.callTool({
          name: 'everything_echo',
          arguments: { message: `via ${era}` },
        });
        expect(result.isError).toBeFalsy();
        expect(result.content).toEqual([{ type: 'text', text: `Echo: via ${era}` }]);
        // Its output schema is listed, and the structured result that matches it comes whole.
        const structured = tools.find((tool) => tool.name === 'everything_get-structured-content');
        expect(structured?.outputSchema).toMatchObject({ type: 'object' });
        const weather = await mcp.client.callTool({
          name: 'everything_get-structured-content',
          arguments: { location: 'New York' },
        });
        expect(weather.isError).toBeFalsy();
        expect(weather.structuredContent).toMatchObject({ temperature: expect.any(Number) });
        const image = await mcp.client.callTool({ name: 'everything_get-tiny-image' });
        expect(image.content.map((block) => block.type)).toContain('image');
        const failed = await mcp.client.callTool({
          name: 'everything_get-resource-reference',
          arguments: { resourceType: 'Text', resourceId: 0 },
        });
        expect(failed.isError).toBe(true);
        // The upstream's progress reaches the client between the host's start and end.
        const seen: number[] = [];
        await mcp.client.callTool(
          {
            name: 'everything_trigger-long-running-operation',
            arguments: { duration: 0.6, steps: 3 },
          },
          { onprogress: ({ progress }) => seen.push(progress) },
        );
        expect(seen.length).toBeGreaterThanOrEqual(4);
      } finally {
        await mcp.close();
      }
    },
  );

  it("relays a 2025-era upstream's questions to a 2025-era session (elicitation, sampling, roots)", async () => {
    const headers = { ...as(ROOT), 'X-Tenant-Id': TENANT, 'X-Toolset': 'fed' };
    const client = new Client(
      { name: 'asked', version: '1.0.0' },
      { capabilities: { elicitation: {}, sampling: {}, roots: {} } },
    );
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, () => {
      asked.push('elicitation');
      return Promise.resolve({ action: 'accept', content: { name: 'Ada Lovelace' } });
    });
    client.setRequestHandler(CreateMessageRequestSchema, () => {
      asked.push('sampling');
      return Promise.resolve({
        role: 'assistant',
        content: { type: 'text', text: 'sampled by the client' },
        model: 'client-model',
      });
    });
    client.setRequestHandler(ListRootsRequestSchema, () => {
      asked.push('roots');
      return Promise.resolve({ roots: [{ uri: 'file:///work/fed', name: 'fed' }] });
    });
    const url = new URL(`${gateway.url}/mcp/`);
    await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
    const textOf = (result: object) =>
      ((result as { content?: Array<{ text?: string }> }).content ?? [])
        .map((block) => block.text ?? '')
        .join('');
    try {
      const elicited = await client.callTool({ name: 'everything_trigger-elicitation-request' });
      expect(elicited.isError).toBeFalsy();
      expect(textOf(elicited)).toContain('Ada Lovelace');
      const sampled = await client.callTool({
        name: 'everything_trigger-sampling-request',
        arguments: { prompt: 'say hello', maxTokens: 20 },
      });
      expect(textOf(sampled)).toContain('sampled by the client');
      const roots = await client.callTool({ name: 'everything_get-roots-list' });
      expect(textOf(roots)).toContain('file:///work/fed');
      expect(asked).toEqual(expect.arrayContaining(['elicitation', 'sampling', 'roots']));
    } finally {
      await client.close();
    }
    // A client that cannot answer: the upstream hears a refusal, the client a tool error.
    const mute = new Client({ name: 'mute', version: '1.0.0' }, { capabilities: {} });
    await mute.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
    try {
      const refused = await mute.callTool({ name: 'everything_trigger-elicitation-request' });
      expect(refused.isError).toBe(true);
    } finally {
      await mute.close();
    }
  });

  it.each<McpEra>(['legacy', 'modern'])(
    "offers the upstream's prompts (prefixed) and resources to %s MCP clients",
    async (era) => {
      const mcp = await connectMcp(
        `${gateway.url}/mcp/`,
        { ...as(ROOT), 'X-Tenant-Id': TENANT, 'X-Toolset': 'fed' },
        era,
      );
      const client = (mcp.modern ?? mcp.legacy)!;
      try {
        const { prompts } = await client.listPrompts();
        expect(prompts.map((prompt) => prompt.name)).toContain('everything_simple-prompt');
        const simple = await client.getPrompt({ name: 'everything_simple-prompt' });
        expect(simple.messages[0]?.content).toEqual({
          type: 'text',
          text: 'This is a simple prompt without arguments.',
        });
        const completed = await client.complete({
          ref: { type: 'ref/prompt', name: 'everything_completable-prompt' },
          argument: { name: 'department', value: 'Eng' },
        });
        expect(completed.completion.values).toContain('Engineering');
        const { resourceTemplates } = await client.listResourceTemplates();
        expect(resourceTemplates.map((template) => template.uriTemplate)).toContain(
          'demo://resource/dynamic/text/{resourceId}',
        );
        const read = await client.readResource({ uri: 'demo://resource/dynamic/text/3' });
        expect(read.contents[0]).toMatchObject({
          uri: 'demo://resource/dynamic/text/3',
          mimeType: 'text/plain',
        });
        // Another toolset of the tenant has no upstream: none of it shows there.
        const plain = await connectMcp(
          `${gateway.url}/mcp/`,
          { ...as(ROOT), 'X-Tenant-Id': TENANT },
          era,
        );
        const other = (plain.modern ?? plain.legacy)!;
        expect((await other.listPrompts()).prompts.map((prompt) => prompt.name)).not.toContain(
          'everything_simple-prompt',
        );
        await plain.close();
      } finally {
        await mcp.close();
      }
    },
  );

  it('federates an MCP server of the 2026-07-28 era (the gateway itself)', async () => {
    await put('nested', 'self', {
      url: `${gateway.url}/mcp/`,
      headers: { Authorization: `Bearer ${ROOT}`, 'X-Tenant-Id': TENANT, 'X-Toolset': 'default' },
    }).expect(200);
    const res = await describeToolset('nested').expect(200);
    expect((res.body.tools as ToolBody[]).map((tool) => tool.name)).toEqual(
      expect.arrayContaining(['self_calculator', 'self_echo']),
    );
    const sum = await call('nested', 'self_calculator', { expression: '6*7' }).expect(200);
    expect(sum.body).toMatchObject({
      is_error: false,
      result: { content: [{ type: 'text', text: '42' }] },
    });
    const connected = logs
      .records()
      .find((line) => line.msg === 'connected to upstream MCP server' && line.upstream === 'self');
    expect(connected).toMatchObject({ era: 'modern', protocol_version: '2026-07-28' });
    const legacy = logs
      .records()
      .find(
        (line) => line.msg === 'connected to upstream MCP server' && line.upstream === 'everything',
      );
    expect(legacy).toMatchObject({ era: 'legacy' });
  });

  it('lists an upstream again at once when it announces a changed tool list', async () => {
    // `self` (registered above) is this gateway's toolset `default`; a tool added there is
    // announced to listening MCP clients, the gateway's own upstream client among them.
    await request(gateway.url)
      .put('/v1/toolsets/default/tools/added_later')
      .set(as(ROOT))
      .send({
        tenant_id: TENANT,
        description: 'Registered after the upstream was listed',
        parameters: { type: 'object', properties: {} },
        endpoint: { url: 'http://127.0.0.1:9/never-called' },
      })
      .expect(200);
    const deadline = Date.now() + 5000;
    let names: string[] = [];
    while (Date.now() < deadline && !names.includes('self_added_later')) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const res = await describeToolset('nested').expect(200);
      names = (res.body.tools as ToolBody[]).map((tool) => tool.name);
    }
    // Long before SVC_UPSTREAM_TOOLS_TTL_MS (5 minutes) would have refreshed it.
    expect(names).toContain('self_added_later');
  });

  it('runs an agent that calls an upstream tool', async () => {
    const res = await request(gateway.url)
      .post('/v1/agent/run')
      .set(as(ROOT))
      .send({
        tenant_id: TENANT,
        toolset: 'fed',
        prompt: '/tool everything_echo {"message":"from the agent"}',
      })
      .expect(200);
    expect(res.body).toMatchObject({ status: 'completed', tool_calls: 1 });
    expect(res.body.text).toContain('Echo: from the agent');
  });

  it('runs a graph step on an upstream tool', async () => {
    await request(gateway.url)
      .put('/v1/agents/fed-graph')
      .set(as(ROOT))
      .send({
        tenant_id: TENANT,
        topology: 'pipeline',
        steps: [
          {
            id: 'say',
            kind: 'tool',
            tool: 'everything_echo',
            toolset: 'fed',
            arguments: { message: '{{input}}' },
          },
        ],
      })
      .expect(200);
    const res = await request(gateway.url)
      .post('/v1/agent/run')
      .set(as(ROOT))
      .send({ tenant_id: TENANT, agent: 'fed-graph', prompt: 'graph input' })
      .expect(200);
    expect(res.body).toMatchObject({ status: 'completed', tool_calls: 1 });
    expect(res.body.text).toContain('Echo: graph input');
  });

  it('forwards upstream progress to the caller, and cancels and times out like HTTP tools', async () => {
    const executor = gateway.app.get(ToolExecutor);
    const invocation = (args: Body) => ({
      tenantId: TENANT,
      toolset: 'fed',
      name: 'everything_trigger-long-running-operation',
      arguments: args as never,
    });
    const progress: ToolProgress[] = [];
    const outcome = await executor.execute(invocation({ duration: 0.6, steps: 3 }), {
      reporter: { onProgress: (report) => progress.push(report) },
    });
    expect(outcome.isError).toBe(false);
    expect(progress.map((report) => report.progress)).toEqual([1, 2, 3]);
    expect(progress[0].total).toBe(3);

    const started = Date.now();
    await expect(
      executor.execute(invocation({ duration: 5, steps: 5 }), {
        signal: AbortSignal.timeout(300),
      }),
    ).rejects.toMatchObject({ name: 'TimeoutError' });
    expect(Date.now() - started).toBeLessThan(2000);

    const slow = await call('fed', 'everything_trigger-long-running-operation', {
      duration: 6,
      steps: 2,
    }).expect(504);
    expect(slow.body.type).toBe('urn:svc:problem:tool-timeout');
  });

  it('keeps the toolset usable when an upstream is unreachable, and makes its calls tool errors', async () => {
    const port = await freePort();
    await put('fed', 'down', { url: `http://127.0.0.1:${port}/mcp` }).expect(200);
    try {
      const res = await describeToolset('fed').expect(200);
      expect((res.body.tools as ToolBody[]).map((tool) => tool.name)).toContain('everything_echo');
      expect(res.body.upstreams).toContainEqual({
        name: 'down',
        status: 'unavailable',
        detail: 'upstream MCP server unreachable',
        exposed: [],
        omitted: [],
      });
      const failed = await call('fed', 'down_anything', {}).expect(502);
      expect(failed.body.type).toBe('urn:svc:problem:tool-failed');
      await call('fed', 'everything_echo', { message: 'still here' }).expect(200);
      const mcp = await connectMcp(`${gateway.url}/mcp/`, {
        ...as(ROOT),
        'X-Tenant-Id': TENANT,
        'X-Toolset': 'fed',
      });
      try {
        const result = await mcp.client.callTool({ name: 'down_anything', arguments: {} });
        expect(result.isError).toBe(true);
      } finally {
        await mcp.close();
      }
    } finally {
      await request(gateway.url)
        .delete(`/v1/toolsets/fed/upstreams/down?tenant_id=${TENANT}`)
        .set(as(ROOT))
        .expect(200);
    }
  });

  it('offers only the allowed tools, under the prefix chosen', async () => {
    await put('picked', 'everything', {
      url: everything.url,
      tools: ['echo', 'no-such-tool'],
      prefix: '',
    }).expect(200);
    const res = await describeToolset('picked').expect(200);
    expect((res.body.tools as ToolBody[]).map((tool) => tool.name)).toEqual(['echo']);
    expect(res.body.upstreams[0].omitted).toEqual([
      { tool: 'no-such-tool', reason: 'the upstream does not offer it' },
    ]);
    await call('picked', 'echo', { message: 'bare' }).expect(200);
    const missing = await call('picked', 'get-sum', { a: 1, b: 2 }).expect(404);
    expect(missing.body.type).toBe('urn:svc:problem:tool-not-found');
  });

  it("keeps a tenant's upstreams from every other tenant", async () => {
    const asB = (req: request.Test) => req.set(as(KEY_B));
    await asB(request(gateway.url).get('/v1/toolsets/fed?tenant_id=b')).expect(404);
    await asB(request(gateway.url).get('/v1/toolsets/fed/upstreams?tenant_id=b')).expect(404);
    await asB(request(gateway.url).get(`/v1/toolsets/fed?tenant_id=${TENANT}`)).expect(403);
    await asB(
      request(gateway.url)
        .post('/v1/tools/fed/everything_echo')
        .send({
          tenant_id: 'b',
          arguments: { message: 'x' },
        }),
    ).expect(404);
    await asB(
      request(gateway.url)
        .post('/v1/tools/fed/everything_echo')
        .send({
          tenant_id: TENANT,
          arguments: { message: 'x' },
        }),
    ).expect(403);
    const mcp = await connectMcp(`${gateway.url}/mcp/`, { ...as(KEY_B), 'X-Toolset': 'fed' });
    try {
      await expect(mcp.client.listTools()).rejects.toMatchObject({ code: expect.any(Number) });
    } finally {
      await mcp.close();
    }
  });

  it('refuses unusable registrations with the field at fault', async () => {
    const reserved = await put('fed', 'bad', {
      url: everything.url,
      headers: { 'Mcp-Session-Id': 'x' },
    }).expect(400);
    expect(reserved.body.errors).toEqual([
      { path: 'headers.Mcp-Session-Id', message: expect.stringContaining('set by the gateway') },
    ]);
    const split = await put('fed', 'bad', {
      url: everything.url,
      headers: { 'X-Key': `${SECRET}\r\nX-Evil: 1` },
    }).expect(400);
    expect(split.text).not.toContain(SECRET);
    const metadata = await put('fed', 'bad', { url: 'http://169.254.169.254/mcp' }).expect(400);
    expect(metadata.body.errors[0].path).toBe('url');
    await put('fed', 'bad', { url: 'ftp://example.com/mcp' }).expect(400);
    await put('fed', 'bad', { url: everything.url, prefix: 'has space' }).expect(400);
    await request(gateway.url)
      .delete(`/v1/toolsets/fed/upstreams/bad?tenant_id=${TENANT}`)
      .set(as(ROOT))
      .expect(404);
  });

  it('deletes an upstream: its tools leave the toolset and the version moves on', async () => {
    await put('gone', 'everything', { url: everything.url }).expect(200);
    const before = await describeToolset('gone').expect(200);
    expect((before.body.tools as ToolBody[]).length).toBeGreaterThan(0);
    const deleted = await request(gateway.url)
      .delete(`/v1/toolsets/gone/upstreams/everything?tenant_id=${TENANT}`)
      .set(as(ROOT))
      .expect(200);
    expect(deleted.body.version).toBe(before.body.version + 1);
    const after = await describeToolset('gone').expect(200);
    expect(after.body.tools).toEqual([]);
    expect(after.body.upstreams).toBeUndefined();
  });

  it('never logs the header values', () => {
    expect(logs.text).not.toContain(SECRET);
  });
});
