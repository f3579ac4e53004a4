import fc from 'fast-check';

/** A route as Express holds it: `/v1/runs/:run_id`, method upper-case. */
export interface RouteTemplate {
  method: string;
  path: string;
}

/** One request the fuzzer sends, kept readable so a failing case can be reported as is. */
export interface FuzzRequest {
  method: string;
  /** The request target exactly as written on the request line (may be malformed). */
  target: string;
  headers: Array<[string, string]>;
  body?: Buffer;
  /** For reports: which route template it was derived from. */
  route: string;
}

/** Values a real client would send, so that requests get past validation into the handlers. */
export interface Plausible {
  tenants: string[];
  keys: { admin: string; tenantBound: string; viewer: string };
  ids: string[];
}

/** Field names of the gateway's bodies and queries: random objects built from them get deep. */
const FIELDS = [
  'tenant_id',
  'prompt',
  'messages',
  'agent',
  'toolset',
  'model',
  'session_id',
  'run_id',
  'max_turns',
  'metadata',
  'multitask',
  'arguments',
  'description',
  'parameters',
  'endpoint',
  'url',
  'steps',
  'topology',
  'id',
  'kind',
  'tool',
  'depends_on',
  'require_approval',
  'budget',
  'node_id',
  'comment',
  'channel',
  'conversation_id',
  'user',
  'text',
  'event_id',
  'title',
  'assignee',
  'column',
  'position',
  'status',
  'limit',
  'name',
  'role',
  'content',
  'tool_calls',
  'type',
  'event',
  'challenge',
  'team_id',
  'ts',
  'properties',
  'pattern',
  'items',
  'required',
  '$ref',
  '$schema',
  '__proto__',
  'constructor',
  'toString',
  'valueOf',
  'hasOwnProperty',
  'toJSON',
  'then',
  'jsonrpc',
  'method',
  'params',
];

/** Strings that have broken parsers, databases and loggers before. */
const HOSTILE_STRINGS = [
  '',
  ' ',
  'a\u0000b',
  '\u0000',
  '\r\n',
  '%00',
  '%',
  '%zz',
  '..',
  '../..',
  '/',
  '\\',
  '\u202e',
  '\ud800',
  '\uffff',
  '😀',
  'null',
  'undefined',
  'NaN',
  '-1',
  '1e309',
  '0x10',
  '[object Object]',
  '{{input}}',
  '{{steps.x.output}}',
  '${7*7}',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  'a'.repeat(300),
  'é'.repeat(200),
  '/tool echo {"text":"x"}',
  '/tool run_agent {"prompt":"x"}',
  '/tool calculator {"expression":"9**9**9"}',
  'http://169.254.169.254/',
  'file:///etc/passwd',
];

const hostileString = fc.oneof(
  fc.constantFrom(...HOSTILE_STRINGS),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({
    unit: fc.integer({ min: 0, max: 0x1f }).map((c) => String.fromCharCode(c)),
    maxLength: 8,
  }),
);

function plausibleString(plausible: Plausible): fc.Arbitrary<string> {
  return fc.constantFrom(
    ...plausible.tenants,
    ...plausible.ids,
    'default',
    'echo',
    'calculator',
    'board',
    'agents',
    'run_agent',
    'chata',
    'chatb',
    'todo',
    'doing',
    'done',
    'pipeline',
    'parallel',
    'supervisor',
    'enqueue',
    'reject',
    'hello',
    'user',
    'assistant',
    'tool',
    'message',
    'event_callback',
    'url_verification',
  );
}

/** Any JSON value: plausible and hostile leaves, objects keyed by the gateway's field names. */
function jsonValue(plausible: Plausible): fc.Arbitrary<unknown> {
  const leaf = fc.oneof(
    { weight: 3, arbitrary: plausibleString(plausible) },
    { weight: 2, arbitrary: hostileString },
    {
      weight: 2,
      arbitrary: fc.oneof(fc.integer(), fc.double(), fc.constantFrom(0, -1, 1e21, 2 ** 53, 1e-7)),
    },
    { weight: 1, arbitrary: fc.constantFrom(null, true, false) },
  );
  const { tree } = fc.letrec<{ tree: unknown }>((tie) => ({
    tree: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      leaf,
      fc.array(tie('tree'), { maxLength: 5 }),
      fc.dictionary(fc.oneof(fc.constantFrom(...FIELDS), hostileString), tie('tree'), {
        maxKeys: 6,
      }),
    ),
  }));
  return tree;
}

/** Bodies that cost a naive server dearly: deep nesting, long arrays, wide objects. */
const expensiveJson = fc.oneof(
  fc.integer({ min: 100, max: 5000 }).map((depth) => '['.repeat(depth) + ']'.repeat(depth)),
  fc
    .integer({ min: 100, max: 3000 })
    .map((depth) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)),
  fc
    .integer({ min: 1000, max: 100_000 })
    .map((n) => `[${new Array<string>(n).fill('0').join(',')}]`),
  fc
    .integer({ min: 1000, max: 30_000 })
    .map((n) => `{"tenant_id":"acme","steps":[${new Array<string>(n).fill('{}').join(',')}]}`),
  fc
    .integer({ min: 100, max: 3000 })
    .map(
      (depth) =>
        `{"tenant_id":"acme","prompt":"x","metadata":${'['.repeat(depth)}${']'.repeat(depth)}}`,
    ),
);

/** What goes on the wire as the body: JSON of an object, of anything, or bytes that are not JSON. */
function bodyText(plausible: Plausible): fc.Arbitrary<string | undefined> {
  const object = fc.dictionary(fc.constantFrom(...FIELDS), jsonValue(plausible), { maxKeys: 8 });
  const withTenant = fc
    .tuple(fc.constantFrom(...plausible.tenants), object)
    .map(([tenant, rest]) => ({ tenant_id: tenant, ...rest }));
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 5, arbitrary: withTenant.map((value) => JSON.stringify(value)) },
    { weight: 2, arbitrary: jsonValue(plausible).map((value) => JSON.stringify(value) ?? 'null') },
    { weight: 1, arbitrary: expensiveJson },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('{', '{"tenant_id":', '[1,]', '{"a":1}{"b":2}', '\ufeff{}', 'nul'),
    },
  );
}

/** JSON-RPC messages for the MCP endpoint, valid in shape or not. */
function mcpBody(plausible: Plausible): fc.Arbitrary<string> {
  const message = fc.record(
    {
      jsonrpc: fc.oneof(fc.constant('2.0'), jsonValue(plausible)),
      id: fc.oneof(fc.integer(), fc.string({ maxLength: 10 }), fc.constant(null)),
      method: fc.oneof(
        fc.constantFrom(
          'initialize',
          'tools/list',
          'tools/call',
          'ping',
          'notifications/initialized',
          'resources/list',
          'prompts/list',
          'logging/setLevel',
          'completion/complete',
        ),
        hostileString,
      ),
      params: fc.oneof(
        jsonValue(plausible),
        fc.record(
          {
            name: plausibleString(plausible),
            arguments: jsonValue(plausible),
            protocolVersion: fc.constantFrom(
              '2025-11-25',
              '2025-03-26',
              '2024-11-05',
              '1999-01-01',
            ),
            capabilities: jsonValue(plausible),
            clientInfo: jsonValue(plausible),
            _meta: jsonValue(plausible),
          },
          { requiredKeys: [] },
        ),
      ),
    },
    { requiredKeys: [] },
  );
  return fc.oneof(
    { weight: 4, arbitrary: message.map((m) => JSON.stringify(m)) },
    { weight: 1, arbitrary: fc.array(message, { maxLength: 4 }).map((m) => JSON.stringify(m)) },
    { weight: 1, arbitrary: expensiveJson },
    { weight: 1, arbitrary: bodyText(plausible).map((text) => text ?? '') },
  );
}

/** Percent-encodes the UTF-8 bytes of any string (encodeURIComponent throws on lone surrogates). */
function percentEncode(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const char = String.fromCharCode(byte);
    out += /[A-Za-z0-9_.~-]/.test(char)
      ? char
      : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** A path parameter: a plausible value, or something hostile percent-encoded (or not). */
function pathSegment(plausible: Plausible): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: plausibleString(plausible).map(percentEncode) },
    { weight: 2, arbitrary: hostileString.map(percentEncode) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('%00', '%2e%2e', '%2F', '%ZZ', '%', '%c0%af', '%ff', '..', ''),
    },
  );
}

function queryString(plausible: Plausible): fc.Arbitrary<string> {
  const pair = fc.tuple(
    fc.oneof(
      fc.constantFrom('tenant_id', 'limit', 'status', 'kind', 'wait', 'toolset', 'session_id'),
      hostileString,
    ),
    fc.oneof(plausibleString(plausible), hostileString, fc.integer().map(String)),
  );
  return fc.oneof(
    fc.constant(''),
    fc
      .array(pair, { maxLength: 5 })
      .map((pairs) =>
        pairs.length === 0
          ? ''
          : `?${pairs.map(([k, v]) => `${percentEncode(k)}=${percentEncode(v)}`).join('&')}`,
      ),
    fc.constantFrom(
      '?tenant_id=acme&tenant_id=beta',
      '?tenant_id[]=acme',
      '?tenant_id[a]=b',
      '?tenant_id',
      '?=&&=',
      '?tenant_id=%00',
    ),
  );
}

function authHeader(plausible: Plausible): fc.Arbitrary<Array<[string, string]>> {
  const { admin, tenantBound, viewer } = plausible.keys;
  return fc.oneof(
    {
      weight: 6,
      arbitrary: fc.constant<Array<[string, string]>>([['Authorization', `Bearer ${admin}`]]),
    },
    { weight: 1, arbitrary: fc.constant<Array<[string, string]>>([['X-API-Key', admin]]) },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom(tenantBound, viewer)
        .map((k): Array<[string, string]> => [['Authorization', `Bearer ${k}`]]),
    },
    { weight: 1, arbitrary: fc.constant<Array<[string, string]>>([]) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(
          'Bearer',
          'Bearer ',
          'Basic YTpi',
          `bearer ${admin}x`,
          `Bearer ${admin} ${admin}`,
          'Bearer \u00ff',
        )
        .map((v): Array<[string, string]> => [['Authorization', v]]),
    },
  );
}

// eslint-disable-next-line no-control-regex -- control characters are what it finds
const CONTROL_BUT_TAB = /[\u0000-\u0008\u000a-\u001f\u007f]/g;

function extraHeaders(plausible: Plausible): fc.Arbitrary<Array<[string, string]>> {
  const header = fc.oneof(
    fc.tuple(
      fc.constantFrom(
        'X-Tenant-Id',
        'X-Toolset',
        'Mcp-Session-Id',
        'Mcp-Protocol-Version',
        'X-Request-Id',
        'Last-Event-ID',
        'Origin',
      ),
      fc.oneof(plausibleString(plausible), hostileString),
    ),
    fc.tuple(
      fc.constant('traceparent'),
      fc.oneof(
        fc.constant('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'),
        hostileString,
      ),
    ),
    fc.tuple(
      fc.constant('Accept'),
      fc.constantFrom(
        'application/json, text/event-stream',
        'text/event-stream',
        '*/*',
        'text/html',
        '',
      ),
    ),
    fc.tuple(
      fc.constant('Content-Encoding'),
      fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'x'),
    ),
    fc.tuple(fc.constant('Expect'), fc.constantFrom('100-continue', 'nonsense')),
  );
  return fc.tuple(fc.array(header, { maxLength: 3 }), fc.nat(9)).map(([headers, dice]) =>
    headers.map(([name, value]): [string, string] => [
      name,
      // CR or LF would split the request itself (the framing cases cover that); other control
      // characters are refused by Node's parser, so most cases leave them out to reach the app.
      value.replace(dice === 0 ? /[\r\n]/g : CONTROL_BUT_TAB, ' '),
    ]),
  );
}

const contentType = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/json') },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'application/json; charset=utf-16',
      'application/json; charset=latin1',
      'application/merge-patch+json',
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      '',
      'application/json;;;',
    ),
  },
  { weight: 1, arbitrary: fc.constant(undefined) },
);

function serialize(request: Omit<FuzzRequest, 'route'>): Buffer {
  const head = [
    `${request.method} ${request.target} HTTP/1.1`,
    'Host: 127.0.0.1',
    'Connection: close',
  ];
  for (const [name, value] of request.headers) head.push(`${name}: ${value}`);
  if (request.body !== undefined) head.push(`Content-Length: ${request.body.length}`);
  return Buffer.concat([
    Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1'),
    request.body ?? Buffer.alloc(0),
  ]);
}

/** A request derived from one of the gateway's routes, with every part open to mutation. */
export function routeRequest(
  routes: RouteTemplate[],
  plausible: Plausible,
  isMcp: (path: string) => boolean,
): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      route: fc.constantFrom(...routes),
      method: fc.oneof(
        { weight: 8, arbitrary: fc.constant(undefined) },
        {
          weight: 1,
          arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'),
        },
      ),
      segments: fc.array(pathSegment(plausible), { minLength: 4, maxLength: 4 }),
      query: queryString(plausible),
      auth: authHeader(plausible),
      extra: extraHeaders(plausible),
      contentType,
      body: bodyText(plausible),
      mcpBody: mcpBody(plausible),
      trailingSlash: fc.boolean(),
    })
    .map((c) => {
      let index = 0;
      const path = c.route.path.replace(/:\w+/g, () => c.segments[index++ % c.segments.length]);
      const mcp = isMcp(c.route.path);
      const text = mcp && c.route.method === 'POST' ? c.mcpBody : c.body;
      const headers: Array<[string, string]> = [...c.auth, ...c.extra];
      if (c.contentType !== undefined && text !== undefined)
        headers.push(['Content-Type', c.contentType]);
      if (mcp && !c.extra.some(([name]) => name === 'Accept')) {
        headers.push(['Accept', 'application/json, text/event-stream']);
      }
      const method = c.method ?? c.route.method;
      return {
        method,
        target: `${path}${c.trailingSlash && !path.endsWith('/') ? '/' : ''}${c.query}`,
        headers,
        body: text === undefined ? undefined : Buffer.from(text, 'utf8'),
        route: `${c.route.method} ${c.route.path}`,
      };
    });
}

/** Requests that are broken below HTTP's semantics: framing, request line, header syntax. */
export const framingRequest: fc.Arbitrary<Buffer> = fc.oneof(
  fc
    .constantFrom(
      'GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n',
      'POST /v1/agent/run HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      'GET / HTTP/9.9\r\nHost: x\r\n\r\n',
      'GET /\u0000 HTTP/1.1\r\nHost: x\r\n\r\n',
      'G@T / HTTP/1.1\r\nHost: x\r\n\r\n',
      'GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n',
      'GET /healthz HTTP/1.1\r\nHost: x\r\nX: a\u0000b\r\n\r\n',
      `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      `GET /${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
      'POST /v1/agent/run HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
      'POST /v1/agent/run HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 2\r\nContent-Type: application/json\r\n\r\n{}',
      'POST /v1/agent/run HTTP/1.1\r\nHost: x\r\nExpect: teapot\r\nContent-Length: 2\r\n\r\n{}',
      '\r\n\r\n',
    )
    .map((text) => Buffer.from(text, 'latin1')),
  fc
    .tuple(
      fc.string({ unit: 'binary', maxLength: 60 }),
      fc.string({ unit: 'binary', maxLength: 60 }),
    )
    .map(([line, header]) => Buffer.from(`${line}\r\nHost: x\r\n${header}\r\n\r\n`, 'utf8')),
);

export { serialize as serializeRequest };
