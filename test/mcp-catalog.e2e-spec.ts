import { beforeAll, describe, expect, it } from '@jest/globals';
import type { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import request from 'supertest';
import { BACKENDS } from './support/backends.js';
import { type McpEra, connectMcp, rpcError } from './support/mcp-client.js';
import { KEY_A, KEY_B, ROOT_KEY, bearer, writeMcpKeysFile } from './support/mcp-fixtures.js';
import { gatewayForSuite } from './support/suite.js';

const ENV = { SVC_API_KEY: ROOT_KEY, SVC_KEYS_FILE: writeMcpKeysFile() };

const REVIEW = {
  tenant_id: 'a',
  title: 'Code review',
  description: 'Reviews a change',
  arguments: [
    {
      name: 'language',
      description: 'The language',
      required: true,
      values: ['go', 'golang', 'python'],
    },
    { name: 'focus' },
  ],
  messages: [
    {
      role: 'user',
      content: { type: 'text', text: 'Review this {{language}} code, focusing on {{focus}}.' },
    },
    {
      role: 'user',
      content: {
        type: 'resource',
        resource: {
          uri: 'docs://style/{{language}}',
          mimeType: 'text/plain',
          text: 'Style for {{language}}',
        },
      },
    },
  ],
};

/** The SDK answers -32602 from 2025-11-25 on, where the spec dropped -32002 (both clients' revisions). */
const NOT_FOUND = {
  code: -32602,
  message: expect.stringContaining('Resource not found'),
};

const textOf = (result: { contents: object[] }) =>
  String((result.contents[0] as { text?: unknown } | undefined)?.text);

/** What a client of either era sees of a tenant's prompts and resources. */
describe.each(BACKENDS)('MCP prompts, resources and completions (%s)', (backend) => {
  const gateway = gatewayForSuite(backend, ENV);
  const admin = () => request(gateway.url);
  let cardId = '';
  let runId = '';

  beforeAll(async () => {
    await admin().put('/v1/prompts/review').set(bearer(ROOT_KEY)).send(REVIEW).expect(200);
    const resources = {
      readme: { uri: 'docs://readme', mime_type: 'text/markdown', text: '# Hello' },
      logo: { uri: 'docs://logo.png', mime_type: 'image/png', blob: 'iVBORw0KGgo=' },
      order: {
        uri_template: 'orders://{id}/summary',
        mime_type: 'application/json',
        text: '{"order":"{id}"}',
      },
    };
    for (const [name, body] of Object.entries(resources)) {
      await admin()
        .put(`/v1/resources/${name}`)
        .set(bearer(ROOT_KEY))
        .send({ tenant_id: 'a', ...body })
        .expect(200);
    }
    const card = await admin()
      .post('/v1/board/cards')
      .set(bearer(ROOT_KEY))
      .send({ tenant_id: 'a', title: 'Ship the MCP catalog' })
      .expect(201);
    cardId = card.body.id;
    const run = await admin()
      .post('/v1/agent/run')
      .set(bearer(ROOT_KEY))
      .send({ tenant_id: 'a', prompt: 'hello there' })
      .expect(200);
    runId = run.body.run_id;
  });

  it('registers prompts and resources over REST and refuses malformed ones with the field named', async () => {
    const listed = await admin().get('/v1/prompts?tenant_id=a').set(bearer(ROOT_KEY)).expect(200);
    expect(listed.body.prompts).toEqual([
      expect.objectContaining({ name: 'review', title: 'Code review' }),
    ]);
    const badMessage = await admin()
      .put('/v1/prompts/bad')
      .set(bearer(ROOT_KEY))
      .send({
        tenant_id: 'a',
        messages: [{ role: 'system', content: { type: 'text', text: 'x' } }],
      })
      .expect(400);
    expect(badMessage.body.errors).toEqual([expect.objectContaining({ path: 'messages.0' })]);
    const both = await admin()
      .put('/v1/resources/bad')
      .set(bearer(ROOT_KEY))
      .send({ tenant_id: 'a', uri: 'x://a', text: 'a', blob: 'YQ==' })
      .expect(400);
    expect(both.body.errors).toEqual([expect.objectContaining({ path: 'text' })]);
    await admin().get('/v1/prompts/nope?tenant_id=a').set(bearer(ROOT_KEY)).expect(404);
    const order = await admin()
      .get('/v1/resources/order?tenant_id=a')
      .set(bearer(ROOT_KEY))
      .expect(200);
    expect(order.body.resource).toEqual({
      name: 'order',
      uri_template: 'orders://{id}/summary',
      mime_type: 'application/json',
      text: '{"order":"{id}"}',
    });
    // Another tenant's catalog is its own.
    const other = await admin().get('/v1/resources?tenant_id=b').set(bearer(ROOT_KEY)).expect(200);
    expect(other.body.resources).toEqual([]);
  });

  describe.each<McpEra>(['legacy', 'modern'])('through the %s client', (era) => {
    const connect = (key = KEY_A) => connectMcp(`${gateway.url}/mcp/`, bearer(key), era);
    /** The SDK client of the era, for the calls the shared wrapper does not cover. */
    const raw = (mcp: Awaited<ReturnType<typeof connect>>) =>
      (mcp.modern ?? mcp.legacy) as unknown as LegacyClient;

    it('lists and renders prompts, completes their arguments', async () => {
      const mcp = await connect();
      const client = raw(mcp);
      const { prompts } = await client.listPrompts();
      expect(prompts).toEqual([
        expect.objectContaining({
          name: 'review',
          title: 'Code review',
          arguments: [
            { name: 'language', description: 'The language', required: true },
            { name: 'focus' },
          ],
        }),
      ]);
      const rendered = await client.getPrompt({
        name: 'review',
        arguments: { language: 'go', focus: 'errors' },
      });
      expect(rendered.messages[0]).toEqual({
        role: 'user',
        content: { type: 'text', text: 'Review this go code, focusing on errors.' },
      });
      expect(rendered.messages[1]?.content).toMatchObject({ resource: { text: 'Style for go' } });
      expect(await rpcError(client.getPrompt({ name: 'review', arguments: {} }))).toMatchObject({
        code: -32602,
      });
      const completed = await client.complete({
        ref: { type: 'ref/prompt', name: 'review' },
        argument: { name: 'language', value: 'go' },
      });
      expect(completed.completion).toMatchObject({
        values: ['go', 'golang'],
        total: 2,
        hasMore: false,
      });
      await mcp.close();
    });

    it("reads the tenant's resources, templates and the gateway's own documents", async () => {
      const mcp = await connect();
      const client = raw(mcp);
      const { resources } = await client.listResources();
      expect(resources.map((resource) => resource.uri)).toEqual([
        'docs://logo.png',
        'docs://readme',
      ]);
      const { resourceTemplates } = await client.listResourceTemplates();
      expect(resourceTemplates.map((template) => template.uriTemplate)).toEqual([
        'orders://{id}/summary',
        'svc://board/cards/{card_id}',
        'svc://runs/{run_id}',
      ]);
      expect((await client.readResource({ uri: 'docs://readme' })).contents).toEqual([
        { uri: 'docs://readme', mimeType: 'text/markdown', text: '# Hello' },
      ]);
      expect((await client.readResource({ uri: 'docs://logo.png' })).contents[0]).toMatchObject({
        blob: 'iVBORw0KGgo=',
      });
      expect(
        (await client.readResource({ uri: 'orders://A-17/summary' })).contents[0],
      ).toMatchObject({
        text: '{"order":"A-17"}',
      });
      const card = await client.readResource({ uri: `svc://board/cards/${cardId}` });
      expect(JSON.parse(textOf(card))).toMatchObject({
        id: cardId,
        title: 'Ship the MCP catalog',
      });
      const run = await client.readResource({ uri: `svc://runs/${runId}` });
      expect(JSON.parse(textOf(run))).toMatchObject({
        run_id: runId,
        status: 'completed',
      });
      expect(await rpcError(client.readResource({ uri: 'svc://runs/no-such-run' }))).toMatchObject(
        NOT_FOUND,
      );
      expect(await rpcError(client.readResource({ uri: 'nowhere://x' }))).toMatchObject(NOT_FOUND);
      await mcp.close();
    });

    it('shows another tenant none of it: not its prompts, resources, cards or runs', async () => {
      const mcp = await connect(KEY_B);
      const client = raw(mcp);
      expect((await client.listPrompts()).prompts).toEqual([]);
      expect((await client.listResources()).resources).toEqual([]);
      expect(await rpcError(client.readResource({ uri: 'docs://readme' }))).toMatchObject(
        NOT_FOUND,
      );
      expect(await rpcError(client.readResource({ uri: `svc://runs/${runId}` }))).toMatchObject(
        NOT_FOUND,
      );
      expect(
        await rpcError(client.readResource({ uri: `svc://board/cards/${cardId}` })),
      ).toMatchObject(NOT_FOUND);
      await mcp.close();
    });
  });

  it('sends log messages from tool calls at the level a session asked for, none unasked', async () => {
    const client = new Client({ name: 'logs', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp/`), {
        requestInit: { headers: bearer(KEY_A) },
      }),
    );
    const heard: unknown[] = [];
    client.setNotificationHandler(
      (await import('@modelcontextprotocol/sdk/types.js')).LoggingMessageNotificationSchema,
      (notification) => void heard.push(notification.params),
    );
    await client.callTool({ name: 'calculator', arguments: { expression: '1+1' } });
    expect(heard).toEqual([]);
    await client.setLoggingLevel('info');
    await client.callTool({ name: 'calculator', arguments: { expression: '1+1' } });
    expect(heard).toEqual([
      {
        level: 'info',
        logger: 'svc-gateway.tools',
        data: {
          tool: 'calculator',
          message: expect.stringMatching(/^calculator finished in \d+ ms$/),
        },
      },
    ]);
    await client.close();
  });

  it('tells a subscribed session when a resource changes', async () => {
    const client = new Client({ name: 'subscriber', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp/`), {
        requestInit: { headers: bearer(KEY_A) },
      }),
    );
    const types = await import('@modelcontextprotocol/sdk/types.js');
    const updated = new Promise<string>((resolve) =>
      client.setNotificationHandler(types.ResourceUpdatedNotificationSchema, (n) =>
        resolve(n.params.uri),
      ),
    );
    await client.subscribeResource({ uri: 'docs://readme' });
    await admin()
      .put('/v1/resources/readme')
      .set(bearer(ROOT_KEY))
      .send({
        tenant_id: 'a',
        uri: 'docs://readme',
        mime_type: 'text/markdown',
        text: '# Hello again',
      })
      .expect(200);
    expect(await updated).toBe('docs://readme');
    await client.close();
  });
});
