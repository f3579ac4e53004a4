import { beforeAll, describe, expect, it } from '@jest/globals';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import request from 'supertest';
import { MAX_TURNS_LIMIT } from '../src/runs/dto/run-agent.dto.js';
import { MAX_INPUT_MESSAGES } from '../src/runs/run-input.limits.js';
import { MAX_RUN_WAIT_S } from '../src/runs/dto/run-query.dto.js';
import {
  HTTP_METHODS,
  type JsonSchema,
  type OpenApiDocument,
  type OpenApiOperation,
  operationsOf,
} from '../src/platform/openapi/openapi.types.js';
import { BACKENDS } from './support/backends.js';
import { routeTable } from './support/gateway.js';
import { StandInController } from './support/stand-in.controller.js';
import { gatewayForSuite } from './support/suite.js';

const ROOT = 'openapi-root-key';
const TENANT = 'acme';
const as = { Authorization: `Bearer ${ROOT}` };

/** `/v1/runs/:run_id` and `/a2a/:agent/rest/{*path}` as OpenAPI path templates. */
const template = (path: string) => path.replace(/:(\w+)/g, '{$1}').replace(/\{\*(\w+)\}/g, '{$1}');

async function fetchDocument(url: string): Promise<OpenApiDocument> {
  const res = await request(url).get('/openapi.json').expect(200);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  return res.body as OpenApiDocument;
}

function operation(document: OpenApiDocument, method: string, path: string): OpenApiOperation {
  const found = document.paths[path]?.[method as (typeof HTTP_METHODS)[number]];
  if (!found) throw new Error(`the document has no ${method.toUpperCase()} ${path}`);
  return found;
}

/** Every schema of the document: components, and each `schema` of a parameter or content. */
function schemasIn(document: OpenApiDocument): Array<[string, unknown]> {
  const found: Array<[string, unknown]> = Object.entries(document.components.schemas);
  const pending: Array<[string, unknown]> = [
    ['paths', document.paths],
    ['responses', document.components.responses],
  ];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [where, value] = next;
    if (value === null || typeof value !== 'object') continue;
    for (const [key, inner] of Object.entries(value)) {
      if (key === 'schema') found.push([where, inner]);
      else pending.push([`${where}/${key}`, inner]);
    }
  }
  return found;
}

/** Validates JSON values against the document's own schemas (JSON Schema 2020-12). */
function schemaChecker(document: OpenApiDocument) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  formats.default(ajv);
  ajv.addSchema({ $id: 'doc', components: document.components }, 'doc');
  return (schema: JsonSchema, value: unknown): string[] => {
    const ref = typeof schema.$ref === 'string' ? `doc${schema.$ref}` : undefined;
    const validate = ref ? ajv.getSchema(ref) : ajv.compile(schema);
    if (!validate) throw new Error(`no schema ${String(schema.$ref)}`);
    return validate(value)
      ? []
      : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`);
  };
}

/** The schema an operation declares for a JSON answer of `status`. */
function answerSchema(
  document: OpenApiDocument,
  op: OpenApiOperation,
  status: number | 'default',
): JsonSchema {
  let response = op.responses[String(status)] as Record<string, unknown> | undefined;
  if (typeof response?.$ref === 'string') {
    response = document.components.responses?.[response.$ref.split('/').pop() ?? ''] as
      Record<string, unknown> | undefined;
  }
  const content = (response?.content ?? {}) as Record<string, { schema?: JsonSchema }>;
  const schema = Object.values(content)[0]?.schema;
  if (!schema) throw new Error(`${op.operationId} declares no body for ${status}`);
  return schema;
}

describe('the API description', () => {
  // A stand-in controller plays a module another branch adds: it must be described unchanged.
  const gateway = gatewayForSuite(
    'sqlite',
    { SVC_API_KEY: ROOT },
    { controllers: [StandInController] },
  );
  let document: OpenApiDocument;

  beforeAll(async () => {
    document = await fetchDocument(gateway.url);
  });

  it('is a valid OpenAPI 3.1 document, served without a key', async () => {
    expect(document.openapi).toMatch(/^3\.1\.\d+$/);
    const validator = new Validator();
    // A copy: resolveRefs() below replaces the references in place.
    const result = await validator.validate(structuredClone(document));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    // Every $ref resolves.
    expect(() => validator.resolveRefs()).not.toThrow();
    // The OpenAPI schema leaves JSON Schemas to their own dialect: each must be a valid 2020-12 one.
    const meta = new Ajv2020();
    for (const [where, schema] of schemasIn(document)) {
      const valid = meta.validateSchema(schema as object);
      expect({ where, errors: valid ? null : meta.errors }).toEqual({ where, errors: null });
    }
    const ids = [...operationsOf(document)].map(({ operation: op }) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('lists every route the running app registered, and no other', () => {
    // OpenAPI 3.1 names eight methods; Express holds an @All route under every method Node
    // knows, and @nestjs/swagger lists it under all of the eight but TRACE.
    const named = new Set<string>(HTTP_METHODS.filter((method) => method !== 'trace'));
    const registered = routeTable(gateway.app).flatMap(({ path, methods }) =>
      methods.filter((m) => named.has(m)).map((m) => `${m.toUpperCase()} ${template(path)}`),
    );
    const described = [...operationsOf(document)].map(
      ({ path, method }) => `${method.toUpperCase()} ${path}`,
    );
    expect(registered.length).toBeGreaterThan(60);
    expect([...new Set(registered)].sort()).toEqual([...new Set(described)].sort());
    for (const route of [
      'POST /v1/agent/run',
      'POST /mcp',
      'POST /a2a/{agent}',
      'GET /metrics',
      'GET /studio/studio.js',
      'GET /openapi.json',
      'GET /docs',
      'GET /',
      'POST /stand-in/tenant',
    ]) {
      expect(described).toContain(route);
    }
  });

  it('describes request bodies and parameters from the DTOs, required fields, enums and bounds', () => {
    const schemas = document.components.schemas;
    expect(operation(document, 'post', '/v1/agent/run').requestBody).toEqual({
      required: true,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/RunAgentDto' } } },
    });
    const run = schemas.RunAgentDto as {
      required: string[];
      properties: Record<string, JsonSchema>;
    };
    expect(run.required).toEqual(['tenant_id']);
    expect(run).toMatchObject({ type: 'object', additionalProperties: false });
    expect(run.properties.tenant_id).toMatchObject({
      type: 'string',
      minLength: 1,
      maxLength: 128,
    });
    expect(run.properties.multitask).toMatchObject({ enum: ['enqueue', 'reject'] });
    expect(run.properties.max_turns).toEqual({
      type: 'integer',
      minimum: 1,
      maximum: MAX_TURNS_LIMIT,
    });
    expect(run.properties.messages).toEqual({
      type: 'array',
      maxItems: MAX_INPUT_MESSAGES,
      items: { $ref: '#/components/schemas/InputMessageDto' },
    });
    expect(schemas.InputMessageDto).toMatchObject({
      required: ['role', 'content'],
      properties: { role: { enum: ['system', 'user', 'assistant'] } },
    });
    // @IsOptional lets null through (the board's `assignee: null` unassigns).
    expect(schemas.UpdateCardDto).toMatchObject({
      required: ['tenant_id'],
      properties: { assignee: { type: ['string', 'null'] } },
    });
    expect(schemas.RegisterToolDto).toMatchObject({
      required: expect.arrayContaining(['tenant_id', 'description', 'parameters', 'endpoint']),
      properties: { endpoint: { $ref: '#/components/schemas/ToolEndpointDto' } },
    });
    expect(schemas.ToolEndpointDto).toMatchObject({
      properties: { url: { type: 'string', format: 'uri' }, protocol: { enum: ['http', 'a2a'] } },
    });

    // Query and path DTOs become parameters.
    const getRun = operation(document, 'get', '/v1/runs/{run_id}');
    expect(getRun.parameters).toEqual(
      expect.arrayContaining([
        {
          name: 'run_id',
          in: 'path',
          required: true,
          schema: expect.objectContaining({ type: 'string' }),
        },
        {
          name: 'tenant_id',
          in: 'query',
          required: true,
          schema: expect.objectContaining({ minLength: 1 }),
        },
        {
          name: 'wait',
          in: 'query',
          required: false,
          schema: { type: 'integer', minimum: 0, maximum: MAX_RUN_WAIT_S },
        },
      ]),
    );

    // The stand-in's DTO, which nobody annotated for the document.
    const standIn = operation(document, 'post', '/stand-in/tenant');
    expect(standIn.requestBody?.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/TenantRequestDto',
    });
    expect(schemas.TenantRequestDto).toMatchObject({
      required: ['tenant_id'],
      properties: {
        count: { type: ['integer', 'null'], maximum: 10 },
        items: { type: ['array', 'null'], items: { $ref: '#/components/schemas/Item' } },
      },
    });
  });

  it('refers every error response to the shared problem schema', () => {
    expect(document.components.schemas.Problem).toMatchObject({
      required: ['type', 'title', 'status', 'detail'],
      properties: { errors: { type: 'array' } },
    });
    const agentRun = operation(document, 'post', '/v1/agent/run');
    for (const status of ['400', '401', '403', '413', '415', '429', '503', 'default']) {
      expect(agentRun.responses[status]).toEqual({
        $ref: expect.stringMatching(/^#\/components\/responses\//),
      });
    }
    for (const [name, response] of Object.entries(document.components.responses ?? {})) {
      expect({ name, content: response.content }).toEqual({
        name,
        content: {
          'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } },
        },
      });
    }
    // Every operation says what its errors look like; only the wires with their own error
    // format (MCP: JSON-RPC, the OpenAI wire) do not answer problem details.
    for (const { path, method, operation: op } of operationsOf(document)) {
      const ownFormat =
        /^\/(mcp|v1\/chat\/completions|v1\/models)(\/|$)/.test(path) ||
        // A2A's bindings answer A2A's errors (JSON-RPC objects, google.rpc statuses).
        /^\/a2a\/\{agent\}(\/rest\/.*)?$/.test(path);
      expect({ route: `${method} ${path}`, default: op.responses.default }).toEqual({
        route: `${method} ${path}`,
        default: ownFormat
          ? { description: expect.stringMatching(/own error format/) }
          : { $ref: '#/components/responses/Problem' },
      });
    }
  });

  it('says which routes are public and which permission the others need, as the guard does', async () => {
    expect(Object.keys(document.components.securitySchemes ?? {})).toEqual(['bearer', 'apiKey']);
    expect(document.components.securitySchemes?.apiKey).toMatchObject({
      in: 'header',
      name: 'X-API-Key',
    });
    expect(document.security).toEqual([{ bearer: [] }, { apiKey: [] }]);
    expect(operation(document, 'post', '/v1/agent/run')['x-permissions']).toEqual(['runs:write']);
    expect(operation(document, 'post', '/v1/runs/{run_id}/approve')['x-permissions']).toEqual([
      'approve:*',
    ]);
    const publicPaths = [...operationsOf(document)]
      .filter(({ operation: op }) => op.security?.length === 0)
      .map(({ method, path }) => `${method.toUpperCase()} ${path}`);
    expect(publicPaths).toEqual(
      expect.arrayContaining([
        'GET /healthz',
        'GET /readyz',
        'GET /mcp/health',
        'GET /openapi.json',
        'GET /docs',
        'GET /',
      ]),
    );
    expect(publicPaths).not.toContain('GET /info');
    // What the document says is what the AuthGuard does, route by route.
    for (const { path, method, operation: op } of operationsOf(document)) {
      if (method === 'head' || method === 'options' || method === 'trace') continue;
      const target = path.replace(/\{(\w+)\}/g, 'x');
      const res = await request(gateway.url)[method as 'get'](target);
      const refused = res.status === 401;
      expect({ route: `${method} ${path}`, refused }).toEqual({
        route: `${method} ${path}`,
        refused: op.security?.length !== 0,
      });
    }
  });

  it('is built once: the same bytes and ETag every time, and 304 when unchanged', async () => {
    const first = await request(gateway.url).get('/openapi.json').expect(200);
    const second = await request(gateway.url).get('/openapi.json').expect(200);
    expect(second.text).toBe(first.text);
    expect(first.headers.etag).toBeDefined();
    await request(gateway.url)
      .get('/openapi.json')
      .set('If-None-Match', String(first.headers.etag))
      .expect(304);
  });
});

describe('the API description of another configuration', () => {
  const gateway = gatewayForSuite('sqlite', {
    SVC_API_KEY: ROOT,
    SVC_MESSAGING_SECRET: 'openapi-test-signing-secret',
    SVC_METRICS_PUBLIC: 'true',
  });

  it('describes the routes as this configuration mounts them', async () => {
    const document = await fetchDocument(gateway.url);
    expect((await new Validator().validate(document)).valid).toBe(true);
    // The signed webhook needs no key, but its signature guard can still refuse the caller.
    const webhook = operation(document, 'post', '/v1/messaging/webhook');
    expect(webhook.security).toEqual([]);
    expect(webhook.description).toMatch(/signature/);
    expect(webhook.responses['401']).toEqual({ $ref: '#/components/responses/Unauthorized' });
    expect(webhook.requestBody?.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/GenericEventDto',
    });
    const metrics = operation(document, 'get', '/metrics');
    expect(metrics.security).toEqual([]);
    expect(metrics.operationId).toBe('PublicMetricsController_scrape');
    await request(gateway.url).get('/metrics').expect(200);
  });
});

describe.each(BACKENDS)('answers of the running gateway match the description (%s)', (backend) => {
  const gateway = gatewayForSuite(backend, { SVC_API_KEY: ROOT });
  let document: OpenApiDocument;
  let check: ReturnType<typeof schemaChecker>;

  beforeAll(async () => {
    document = await fetchDocument(gateway.url);
    check = schemaChecker(document);
  });

  it('answers runs, the studio and the probes in their declared shapes', async () => {
    const run = await request(gateway.url)
      .post('/v1/agent/run')
      .set(as)
      .send({ tenant_id: TENANT, prompt: 'describe me', metadata: { n: 1 } })
      .expect(200);
    const runOp = operation(document, 'post', '/v1/agent/run');
    expect(check(answerSchema(document, runOp, 200), run.body)).toEqual([]);
    const answers: Array<[string, string, number, request.Response]> = [
      [
        'get',
        '/v1/runs/{run_id}',
        200,
        await request(gateway.url)
          .get(`/v1/runs/${String(run.body.run_id)}?tenant_id=${TENANT}`)
          .set(as)
          .expect(200),
      ],
      [
        'get',
        '/v1/runs/{run_id}/spans',
        200,
        await request(gateway.url)
          .get(`/v1/runs/${String(run.body.run_id)}/spans?tenant_id=${TENANT}`)
          .set(as)
          .expect(200),
      ],
      ['get', '/v1/whoami', 200, await request(gateway.url).get('/v1/whoami').set(as).expect(200)],
      ['get', '/v1/studio', 200, await request(gateway.url).get('/v1/studio').set(as).expect(200)],
      ['get', '/healthz', 200, await request(gateway.url).get('/healthz').expect(200)],
      ['get', '/readyz', 200, await request(gateway.url).get('/readyz').expect(200)],
      ['get', '/health', 200, await request(gateway.url).get('/health').expect(200)],
      ['get', '/info', 200, await request(gateway.url).get('/info').set(as).expect(200)],
    ];
    for (const [method, path, status, res] of answers) {
      const errors = check(
        answerSchema(document, operation(document, method, path), status),
        res.body,
      );
      expect({ path, errors }).toEqual({ path, errors: [] });
    }
    expect((await request(gateway.url).get('/v1/studio').set(as)).body.loops).toHaveLength(1);
  });

  it('answers errors as the problem schema says, field errors included', async () => {
    const runOp = operation(document, 'post', '/v1/agent/run');
    const invalid = await request(gateway.url)
      .post('/v1/agent/run')
      .set(as)
      .send({ prompt: 'no tenant', max_turns: 0 })
      .expect(400);
    expect(invalid.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(invalid.body.errors.length).toBeGreaterThan(0);
    expect(check(answerSchema(document, runOp, 400), invalid.body)).toEqual([]);
    const unauthorized = await request(gateway.url).post('/v1/agent/run').send({}).expect(401);
    expect(check(answerSchema(document, runOp, 401), unauthorized.body)).toEqual([]);
    const missing = await request(gateway.url)
      .get(`/v1/runs/nope?tenant_id=${TENANT}`)
      .set(as)
      .expect(404);
    const getRun = operation(document, 'get', '/v1/runs/{run_id}');
    expect(check(answerSchema(document, getRun, 'default'), missing.body)).toEqual([]);
  });
});
