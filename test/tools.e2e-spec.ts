import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { AuditSink } from '../src/platform/audit/audit-sink.js';
import { BACKENDS } from './support/backends.js';
import { startGateway } from './support/gateway.js';
import { freePort } from './support/net.js';
import { gatewayForSuite } from './support/suite.js';
import { type ToolEndpoint, startToolEndpoint } from './support/tool-endpoint.js';
import { sha256Hex, writeKeysFile } from './support/keys-file.js';

const ROOT_KEY = 'tools-test-root-key';
const KEY_A = 'tenant-a-operator-key';
const KEY_B = 'tenant-b-runner-key';
const KEY_A_VIEWER = 'tenant-a-viewer-key';

function keysFile(): string {
  return writeKeysFile({
    keys: [
      { id: 'a-ops', key_sha256: sha256Hex(KEY_A), tenant_id: 'a', roles: ['operator'] },
      { id: 'b-run', key_sha256: sha256Hex(KEY_B), tenant_id: 'b', roles: ['runner'] },
      { id: 'a-view', key: KEY_A_VIEWER, tenant_id: 'a', roles: ['viewer'] },
    ],
  });
}

const ENV = { SVC_API_KEY: ROOT_KEY, SVC_KEYS_FILE: keysFile(), SVC_TOOL_TIMEOUT_MS: '500' };
const as = (key: string) => ({ Authorization: `Bearer ${key}` });

const ORDER_SCHEMA = {
  type: 'object',
  properties: {
    sku: { type: 'string', enum: ['A-1', 'B-2', null] },
    items: {
      type: 'array',
      items: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    },
    qty: { type: 'integer', minimum: 1 },
  },
  required: ['sku'],
};

const toolNames = (res: request.Response): string[] =>
  (res.body as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name);

function expectProblem(res: request.Response, status: number, slug: string): void {
  expect({ status: res.status, type: res.body.type }).toEqual({
    status,
    type: `urn:svc:problem:${slug}`,
  });
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
}

let endpoint: ToolEndpoint;
beforeAll(async () => {
  endpoint = await startToolEndpoint();
});
afterAll(() => endpoint.close());

describe.each(BACKENDS)('tools and toolsets (%s)', (backend) => {
  const gateway = gatewayForSuite(backend, ENV);

  const http = () => request(gateway.url);
  const register = (toolset: string, name: string, route = '/echo', key = KEY_A, tenant = 'a') =>
    http()
      .put(`/v1/toolsets/${toolset}/tools/${name}`)
      .set(as(key))
      .send({
        tenant_id: tenant,
        description: `calls ${route}`,
        parameters: ORDER_SCHEMA,
        endpoint: { url: `${endpoint.url}${route}` },
      });
  const call = (toolset: string, name: string, args?: unknown, key = KEY_A, tenant = 'a') =>
    http()
      .post(`/v1/tools/${toolset}/${name}`)
      .set(as(key))
      .send({ tenant_id: tenant, ...(args === undefined ? {} : { arguments: args }) });

  it('lists the built-in toolsets (default, agents and board), at version 0', async () => {
    const list = await http().get('/v1/toolsets?tenant_id=fresh').set(as(ROOT_KEY)).expect(200);
    expect(list.body).toEqual({
      tenant_id: 'fresh',
      toolsets: [
        { toolset: 'agents', version: 0, tools: 1 },
        { toolset: 'board', version: 0, tools: 5 },
        { toolset: 'default', version: 0, tools: 3 },
      ],
    });
    const view = await http().get('/v1/toolsets/default?tenant_id=fresh').set(as(ROOT_KEY));
    expect(view.status).toBe(200);
    expect(view.body).toMatchObject({ tenant_id: 'fresh', toolset: 'default', version: 0 });
    expect(toolNames(view)).toEqual(['echo', 'current_time', 'calculator']);
    expect(view.body.tools[2]).toMatchObject({
      builtin: true,
      parameters: { type: 'object', required: ['expression'] },
    });
  });

  it('calls the built-ins; tool-level failures are results, not errors', async () => {
    expect((await call('default', 'calculator', { expression: '2*(3+4)' })).body).toEqual({
      tool: 'calculator',
      toolset: 'default',
      version: 0,
      result: 14,
      is_error: false,
    });
    expect((await call('default', 'echo', { text: 'hi' })).body.result).toBe('hi');
    const time = await call('default', 'current_time', { timezone: 'Asia/Tokyo' }).expect(200);
    expect(time.body.result).toEqual({
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+09:00$/),
      timezone: 'Asia/Tokyo',
    });
    const byZero = await call('default', 'calculator', { expression: '1/0' }).expect(200);
    expect(byZero.body).toMatchObject({ result: 'division by zero', is_error: true });
    const evil = await call('default', 'calculator', { expression: 'process.exit()' });
    expect(evil.body).toMatchObject({ is_error: true });
    expect(evil.body.result).toMatch(/^unsupported expression/);
    const zone = await call('default', 'current_time', { timezone: 'Nowhere/Land' }).expect(200);
    expect(zone.body.is_error).toBe(true);
  });

  it('registers, replaces and deletes an HTTP tool, bumping the version each time', async () => {
    const created = await register('shop', 'order').expect(200);
    expect(created.body).toEqual({
      tenant_id: 'a',
      toolset: 'shop',
      version: 1,
      tool: {
        name: 'order',
        description: 'calls /echo',
        parameters: ORDER_SCHEMA,
        builtin: false,
        endpoint: { url: `${endpoint.url}/echo` },
      },
    });
    expect((await register('shop', 'order').expect(200)).body.version).toBe(2);
    const view = await http().get('/v1/toolsets/shop?tenant_id=a').set(as(KEY_A)).expect(200);
    expect(view.body).toMatchObject({ version: 2, tools: [{ name: 'order', builtin: false }] });
    // The schema comes back exactly as registered (nulls in enums, nested arrays).
    expect(view.body.tools[0].parameters).toEqual(ORDER_SCHEMA);

    const args = { sku: 'A-1', items: [{ name: 'x', tags: [1, null, { deep: true }] }], qty: 2 };
    const before = endpoint.received.length;
    const called = await call('shop', 'order', args).expect(200);
    expect(called.body).toEqual({
      tool: 'order',
      toolset: 'shop',
      version: 2,
      result: { received: args },
      is_error: false,
    });
    const [seen] = endpoint.received.slice(before);
    expect(seen).toMatchObject({ path: '/echo', method: 'POST', body: args });
    expect(seen.headers).toMatchObject({
      'content-type': 'application/json',
      'x-tenant-id': 'a',
      'x-toolset': 'shop',
      'x-tool-name': 'order',
    });
    expect(seen.headers.authorization).toBeUndefined();

    const deleted = await http()
      .delete('/v1/toolsets/shop/tools/order?tenant_id=a')
      .set(as(KEY_A))
      .expect(200);
    expect(deleted.body).toEqual({ tenant_id: 'a', toolset: 'shop', version: 3 });
    expectProblem(await call('shop', 'order', args), 404, 'tool-not-found');
    expectProblem(
      await http().delete('/v1/toolsets/shop/tools/order?tenant_id=a').set(as(KEY_A)),
      404,
      'tool-not-found',
    );
    // An emptied toolset stays, so its version never goes back.
    const list = await http().get('/v1/toolsets?tenant_id=a').set(as(KEY_A)).expect(200);
    expect(list.body.toolsets).toEqual(
      expect.arrayContaining([{ toolset: 'shop', version: 3, tools: 0 }]),
    );

    const audit = gateway.app.get(AuditSink);
    expect(
      (await audit.list({ tenantId: 'a', kind: 'tool.registered', limit: 2 }))[0],
    ).toMatchObject({
      actor: 'a-ops',
      details: { toolset: 'shop', tool: 'order', version: 2, replaced: true },
    });
    expect((await audit.list({ tenantId: 'a', kind: 'tool.deleted', limit: 1 }))[0]).toMatchObject({
      details: { toolset: 'shop', tool: 'order', version: 3 },
    });
    const invoked = await audit.list({ tenantId: 'a', kind: 'tool.invoked', limit: 2 });
    expect(invoked.map((e) => e.details)).toEqual([
      expect.objectContaining({ tool: 'order', version: 3, is_error: true, status: 404 }),
      expect.objectContaining({ tool: 'order', version: 2, is_error: false }),
    ]);
  });

  it('registers into default beside the built-ins, but never over one (409)', async () => {
    expect((await register('default', 'lookup').expect(200)).body.version).toBe(1);
    const view = await http().get('/v1/toolsets/default?tenant_id=a').set(as(KEY_A)).expect(200);
    expect(toolNames(view)).toEqual(['echo', 'current_time', 'calculator', 'lookup']);
    expectProblem(await register('default', 'calculator'), 409, 'builtin-tool');
    expectProblem(
      await http().delete('/v1/toolsets/default/tools/echo?tenant_id=a').set(as(KEY_A)),
      409,
      'builtin-tool',
    );
  });

  it('answers invalid arguments with 422 and paths into the arguments', async () => {
    await register('shop', 'checked').expect(200);
    const res = await call('shop', 'checked', { items: [{}], qty: 0, extra: true });
    expectProblem(res, 422, 'invalid-arguments');
    expect(res.body.errors).toEqual(
      expect.arrayContaining([
        { path: 'sku', message: 'is required' },
        { path: 'items[0].name', message: 'is required' },
        { path: 'qty', message: 'must be >= 1' },
      ]),
    );
    const builtin = await call('default', 'calculator', { expression: 5 });
    expectProblem(builtin, 422, 'invalid-arguments');
    expect(builtin.body.errors).toEqual([{ path: 'expression', message: 'must be string' }]);
    expect(builtin.body.detail).toContain('expression must be string');
    expectProblem(await call('default', 'echo'), 422, 'invalid-arguments');
    expectProblem(await call('default', 'echo', 'text'), 400, 'validation');
  });

  /** Registers tool `name` in tenant a's toolset `odd` with a schema sent as exactly this text. */
  const registerText = (name: string, schema: string) =>
    http()
      .put(`/v1/toolsets/odd/tools/${name}`)
      .set(as(KEY_A))
      .set('Content-Type', 'application/json')
      .send(
        `{"tenant_id":"a","description":"d","parameters":${schema},` +
          `"endpoint":{"url":"${endpoint.url}/echo"}}`,
      );

  it('keeps schemas and arguments exactly as sent, keys named like Object methods included', async () => {
    // (`__proto__`, `constructor` and `prototype` keys are stripped from every body by Nest's
    // ValidationPipe; names like these used to be dropped by class-transformer.)
    const schema =
      '{"type":"object","properties":{"toString":{"type":"number"},"valueOf":{"type":"string"}},' +
      '"required":["toString"],"additionalProperties":false}';
    const registered = await registerText('__proto__', schema).expect(200);
    expect(JSON.stringify(registered.body.tool.parameters)).toBe(schema);
    const view = await http().get('/v1/toolsets/odd?tenant_id=a').set(as(KEY_A)).expect(200);
    expect(toolNames(view)).toEqual(['__proto__']);
    expect(JSON.stringify(view.body.tools[0].parameters)).toBe(schema);

    const args = '{"toString":1,"valueOf":"x"}';
    const before = endpoint.received.length;
    await http()
      .post('/v1/tools/odd/__proto__')
      .set(as(KEY_A))
      .set('Content-Type', 'application/json')
      .send(`{"tenant_id":"a","arguments":${args}}`)
      .expect(200);
    expect(JSON.stringify(endpoint.received[before].body)).toBe(args);

    const extra = await http()
      .post('/v1/tools/default/echo')
      .set(as(KEY_A))
      .set('Content-Type', 'application/json')
      .send('{"tenant_id":"a","arguments":{"text":"x","hasOwnProperty":1}}');
    expectProblem(extra, 422, 'invalid-arguments');
    expect(extra.body.errors).toEqual([
      { path: 'hasOwnProperty', message: 'is not an allowed property' },
    ]);
  });

  it('compares enum and const members as JSON values, members named like Object methods included', async () => {
    const schema =
      '{"type":"object","properties":{"pick":{"enum":["a",{"toString":1,"k":[1]}]},' +
      '"fixed":{"const":{"valueOf":"v"}}}}';
    await registerText('equal', schema).expect(200);
    const send = (args: string) =>
      http()
        .post('/v1/tools/odd/equal')
        .set(as(KEY_A))
        .set('Content-Type', 'application/json')
        .send(`{"tenant_id":"a","arguments":${args}}`);

    // Equal whatever the members' order.
    await send('{"pick":{"k":[1],"toString":1},"fixed":{"valueOf":"v"}}').expect(200);
    for (const args of [
      '{"pick":{"toString":false}}',
      '{"pick":{"valueOf":1}}',
      '{"fixed":{"toString":"v"}}',
      '{"fixed":{"valueOf":"w"}}',
    ]) {
      const refused = await send(args);
      expectProblem(refused, 422, 'invalid-arguments');
      const [path] = Object.keys(JSON.parse(args) as object);
      expect(refused.body.errors).toEqual([
        {
          path,
          message:
            path === 'pick'
              ? 'must be equal to one of the allowed values'
              : 'must be equal to constant',
        },
      ]);
    }
  });

  it('answers an unknown tool or toolset with 404', async () => {
    expectProblem(await call('default', 'nope', {}), 404, 'tool-not-found');
    expectProblem(await call('nowhere', 'echo', {}), 404, 'tool-not-found');
    expectProblem(
      await http().get('/v1/toolsets/nowhere?tenant_id=a').set(as(KEY_A)),
      404,
      'toolset-not-found',
    );
  });

  it("keeps tenants apart: b can neither name a nor see a's toolsets", async () => {
    await register('private', 'secret').expect(200);
    const asB = as(KEY_B);
    await http().get('/v1/toolsets/private?tenant_id=a').set(asB).expect(403);
    await http().get('/v1/toolsets?tenant_id=a').set(asB).expect(403);
    expect((await call('private', 'secret', { sku: 'A-1' }, KEY_B)).status).toBe(403);
    expect((await register('private', 'secret', '/echo', KEY_B)).status).toBe(403);

    expectProblem(
      await http().get('/v1/toolsets/private?tenant_id=b').set(asB),
      404,
      'toolset-not-found',
    );
    expectProblem(
      await call('private', 'secret', { sku: 'A-1' }, KEY_B, 'b'),
      404,
      'tool-not-found',
    );
    const list = await http().get('/v1/toolsets?tenant_id=b').set(asB).expect(200);
    expect(list.body.toolsets).toEqual([
      { toolset: 'agents', version: 0, tools: 1 },
      { toolset: 'board', version: 0, tools: 5 },
      { toolset: 'default', version: 0, tools: 3 },
    ]);
    // b registering the same names gets its own toolset and versions.
    expect((await register('private', 'secret', '/echo', KEY_B, 'b')).body.version).toBe(1);
  });

  it('needs tools:read, tools:write and tools:call', async () => {
    const viewer = as(KEY_A_VIEWER);
    await http().get('/v1/toolsets?tenant_id=a').set(viewer).expect(403);
    expect((await register('shop', 'x', '/echo', KEY_A_VIEWER)).status).toBe(403);
    expect((await call('default', 'echo', { text: 'hi' }, KEY_A_VIEWER)).status).toBe(403);
  });

  it('maps endpoint failures: 502 unreachable, non-2xx or bad body; 504 slow', async () => {
    const closed = await freePort();
    await http()
      .put('/v1/toolsets/flaky/tools/down')
      .set(as(KEY_A))
      .send({
        tenant_id: 'a',
        description: 'nothing listens',
        parameters: { type: 'object' },
        endpoint: { url: `http://127.0.0.1:${closed}/` },
      })
      .expect(200);
    const down = await call('flaky', 'down', {});
    expectProblem(down, 502, 'tool-failed');
    expect(down.body.detail).toBe('tool endpoint unreachable');

    for (const route of ['/fail', '/not-json', '/huge', '/slow', '/is-error', '/empty']) {
      await register('flaky', route.slice(1), route).expect(200);
    }
    const failed = await call('flaky', 'fail', { sku: 'A-1' });
    expectProblem(failed, 502, 'tool-failed');
    // The same words as a closed port: tenants must not map the network through their tools.
    expect(failed.body.detail).toBe('tool endpoint unreachable');
    expectProblem(await call('flaky', 'not-json', { sku: 'A-1' }), 502, 'tool-failed');
    expectProblem(await call('flaky', 'huge', { sku: 'A-1' }), 502, 'tool-failed');

    const started = Date.now();
    expectProblem(await call('flaky', 'slow', { sku: 'A-1' }), 504, 'tool-timeout');
    expect(Date.now() - started).toBeLessThan(2500);

    const toolError = await call('flaky', 'is-error', { sku: 'A-1' }).expect(200);
    expect(toolError.body).toMatchObject({
      result: { is_error: true, message: 'no such order' },
      is_error: true,
    });
    expect((await call('flaky', 'empty', { sku: 'A-1' }).expect(200)).body.result).toBeNull();
  });

  it('refuses bad registrations with 400', async () => {
    const put = (path: string, body: Record<string, unknown>) =>
      http()
        .put(path)
        .set(as(KEY_A))
        .send({
          tenant_id: 'a',
          description: 'd',
          parameters: { type: 'object' },
          endpoint: { url: `${endpoint.url}/echo` },
          ...body,
        });
    const badSchema = await put('/v1/toolsets/shop/tools/bad', {
      parameters: { type: 'object', properties: { x: { type: 'nope' } } },
    });
    expectProblem(badSchema, 400, 'validation');
    expect(badSchema.body.errors).toEqual([
      { path: 'parameters.properties.x.type', message: expect.any(String) },
    ]);
    const notObject = await put('/v1/toolsets/shop/tools/bad', { parameters: { type: 'string' } });
    expect(notObject.body.errors).toEqual([
      { path: 'parameters.type', message: expect.any(String) },
    ]);
    const metadata = await put('/v1/toolsets/shop/tools/bad', {
      endpoint: { url: 'http://169.254.169.254/latest/meta-data/' },
    });
    expectProblem(metadata, 400, 'validation');
    expect(metadata.body.errors).toEqual([
      {
        path: 'endpoint.url',
        message: expect.stringContaining('may not point at link-local, metadata'),
      },
    ]);
    for (const url of ['ftp://example.com/x', '/relative', 'http://user:pw@example.com/']) {
      const res = await put('/v1/toolsets/shop/tools/bad', { endpoint: { url } });
      expectProblem(res, 400, 'validation');
      expect(res.body.errors).toEqual([{ path: 'endpoint.url', message: expect.any(String) }]);
    }
    const badName = await put('/v1/toolsets/shop/tools/bad%20name', {});
    expect(badName.body.errors).toEqual([{ path: 'name', message: expect.any(String) }]);
    expectProblem(
      await put('/v1/toolsets/shop/tools/bad', { tenant_id: undefined }),
      400,
      'validation',
    );
    expectProblem(
      await put('/v1/toolsets/shop/tools/bad', { description: 'x'.repeat(1025) }),
      400,
      'validation',
    );
    // Nothing was written by any of these.
    const shop = await http().get('/v1/toolsets/shop?tenant_id=a').set(as(KEY_A)).expect(200);
    expect(toolNames(shop)).not.toContain('bad');
  });

  it('answers a missing tenant_id with 400 everywhere', async () => {
    const root = as(ROOT_KEY);
    for (const res of [
      await http().get('/v1/toolsets').set(root),
      await http().get('/v1/toolsets/default').set(root),
      await http().delete('/v1/toolsets/shop/tools/order').set(root),
      await http()
        .post('/v1/tools/default/echo')
        .set(root)
        .send({ arguments: { text: 'x' } }),
    ]) {
      expectProblem(res, 400, 'validation');
      const paths = (res.body as { errors: Array<{ path: string }> }).errors.map((e) => e.path);
      expect(new Set(paths)).toEqual(new Set(['tenant_id']));
    }
  });

  it('shares toolsets and versions between gateways on one backend', async () => {
    const second = await startGateway({ ...gateway.fixture.env, ...ENV });
    try {
      await register('shared', 'first').expect(200);
      const seen = await request(second.url)
        .get('/v1/toolsets/shared?tenant_id=a')
        .set(as(KEY_A))
        .expect(200);
      expect(seen.body).toMatchObject({ version: 1, tools: [{ name: 'first' }] });
      await request(second.url)
        .delete('/v1/toolsets/shared/tools/first?tenant_id=a')
        .set(as(KEY_A))
        .expect(200);
      const back = await http().get('/v1/toolsets/shared?tenant_id=a').set(as(KEY_A)).expect(200);
      expect(back.body).toMatchObject({ version: 2, tools: [] });

      // Concurrent registrations on both replicas: none is lost, every version is used once.
      const burst = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          request(i % 2 ? second.url : gateway.url)
            .put(`/v1/toolsets/burst/tools/t${i}`)
            .set(as(KEY_A))
            .send({
              tenant_id: 'a',
              description: 'd',
              parameters: { type: 'object' },
              endpoint: { url: `${endpoint.url}/echo` },
            }),
        ),
      );
      expect(burst.map((res) => res.status)).toEqual(Array(8).fill(200));
      const versions = burst.map((res) => (res.body as { version: number }).version);
      expect(versions.sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      const final = await http().get('/v1/toolsets/burst?tenant_id=a').set(as(KEY_A)).expect(200);
      expect(final.body.version).toBe(8);
      expect(toolNames(final).sort()).toEqual(['t0', 't1', 't2', 't3', 't4', 't5', 't6', 't7']);
    } finally {
      await second.close();
    }
  });
});
