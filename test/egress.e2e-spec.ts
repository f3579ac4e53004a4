import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { LookupAddress } from 'node:dns';
import { type AddressInfo, type Server, createServer, isIP } from 'node:net';
import request from 'supertest';
import { type EgressLookup, systemLookup } from '../src/platform/http/egress-agent.js';
import { BACKENDS } from './support/backends.js';
import { LogCapture } from './support/gateway.js';
import { freePort } from './support/net.js';
import { type SuiteGateway, gatewayForSuite } from './support/suite.js';
import { type ToolEndpoint, startToolEndpoint } from './support/tool-endpoint.js';

const KEY = 'egress-test-root-key';
const auth = { Authorization: `Bearer ${KEY}` };

/**
 * Names that exist only for these gateways (no DNS, no /etc/hosts): the resolver the gateway is
 * given maps them, and leaves every other name to the system.
 */
const NAMES = new Map<string, string[]>([
  ['tools.test', ['127.0.0.1']],
  ['other.test', ['127.0.0.1']],
  ['svc.allowed.test', ['127.0.0.1']],
  ['alias.test', ['169.254.169.254']],
  ['mixed.test', ['127.0.0.1', '::ffff:169.254.169.254']],
]);
const egressLookup: EgressLookup = (hostname) => {
  const mapped = NAMES.get(hostname);
  if (!mapped) return systemLookup(hostname);
  return Promise.resolve(
    mapped.map((address): LookupAddress => ({ address, family: isIP(address) })),
  );
};
/** One capture for the file: nestjs-pino keeps the first app's logger for the process. */
const logs = new LogCapture();

/** Every spelling of a metadata endpoint the review tried, and more. */
const METADATA_URLS = [
  'http://169.254.169.254/latest/meta-data/',
  'http://[::ffff:169.254.169.254]/latest/meta-data/',
  'http://[::ffff:a9fe:a9fe]/latest/meta-data/',
  'http://[::169.254.169.254]/latest/meta-data/',
  'http://[64:ff9b::a9fe:a9fe]/latest/meta-data/',
  'http://[64:ff9b::169.254.169.254]/',
  'http://[2002:a9fe:a9fe::]/latest/meta-data/',
  'http://[2001:0:4136:e378:8000:63bf:5601:5601]/',
  'http://[fd00:ec2::254]/latest/meta-data/',
  'http://[fe80::a9fe:a9fe]/',
  'http://100.100.100.200/latest/meta-data/',
  'http://192.0.0.192/opc/v1/instance/',
  'http://168.63.129.16/machine?comp=goalstate',
  'http://2852039166/latest/meta-data/',
  'http://0xa9fea9fe/latest/meta-data/',
  'http://0251.0376.0251.0376/',
  'http://169.254.169.254./latest/meta-data/',
  'http://metadata.google.internal/computeMetadata/v1/',
  'http://METADATA.GOOGLE.INTERNAL./computeMetadata/v1/',
  'http://0.0.0.0:80/',
];

const UNREACHABLE = {
  type: 'urn:svc:problem:tool-failed',
  title: 'Bad Gateway',
  status: 502,
  detail: 'tool endpoint unreachable',
};

let endpoint: ToolEndpoint;
/** A server that resets every connection as soon as a request arrives. */
let resetter: { server: Server; url: string };
beforeAll(async () => {
  endpoint = await startToolEndpoint();
  const server = createServer((socket) => socket.once('data', () => socket.resetAndDestroy()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  resetter = { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
});
afterAll(async () => {
  await endpoint.close();
  resetter.server.close();
});

/** The port of the stand-in tool endpoint, to build URLs with other host names. */
const endpointPort = () => new URL(endpoint.url).port;

function client(gateway: SuiteGateway) {
  const register = (name: string, url: string, tenant = 'acme') =>
    request(gateway.url)
      .put(`/v1/toolsets/ops/tools/${name}`)
      .set(auth)
      .send({
        tenant_id: tenant,
        description: `calls ${url}`,
        parameters: { type: 'object' },
        endpoint: { url },
      });
  const call = (name: string, tenant = 'acme') =>
    request(gateway.url)
      .post(`/v1/tools/ops/${name}`)
      .set(auth)
      .send({ tenant_id: tenant, arguments: {} });
  /** The tenant-visible problem without what differs per request. */
  const problem = (res: request.Response) => {
    const body = { ...(res.body as Record<string, unknown>) };
    delete body.instance;
    delete body.request_id;
    return { status: res.status, contentType: res.headers['content-type'], body };
  };
  return { register, call, problem };
}

const received = (route: string) => endpoint.received.filter((call) => call.path === route).length;

describe.each(BACKENDS)('egress policy, gateway on loopback (%s)', (backend) => {
  const gateway = gatewayForSuite(backend, { SVC_API_KEY: KEY }, { logs, egressLookup });

  it('refuses every spelling of a metadata address at registration: 400 on endpoint.url', async () => {
    const { register } = client(gateway);
    for (const url of METADATA_URLS) {
      const res = await register('meta', url);
      expect([url, res.status, res.body.type]).toEqual([url, 400, 'urn:svc:problem:validation']);
      expect(res.body.errors).toEqual([{ path: 'endpoint.url', message: expect.any(String) }]);
    }
    const listed = await request(gateway.url)
      .get('/v1/toolsets/ops?tenant_id=acme')
      .set(auth)
      .expect(404);
    expect(listed.body.type).toBe('urn:svc:problem:toolset-not-found');
  });

  it('keeps loopback tools working in loopback dev mode, by address or by name', async () => {
    const { register, call } = client(gateway);
    await register('local', `${endpoint.url}/echo`).expect(200);
    await register('named', `http://tools.test:${endpointPort()}/echo`).expect(200);
    await register('localhost', `http://localhost:${endpointPort()}/echo`).expect(200);
    for (const name of ['local', 'named', 'localhost']) {
      expect((await call(name).expect(200)).body.result).toEqual({ received: {} });
    }
  });

  it('refuses, when calling, a name that resolves to a forbidden address', async () => {
    const { register, call, problem } = client(gateway);
    const before = received('/echo');
    for (const name of ['alias', 'mixed']) {
      // A name cannot be judged at registration; the connection is.
      await register(name, `http://${name}.test:${endpointPort()}/echo`).expect(200);
      expect(problem(await call(name))).toMatchObject({ status: 502, body: UNREACHABLE });
    }
    expect(received('/echo')).toBe(before);
    expect(logs.text).toContain('alias.test resolves to 169.254.169.254');
  });

  it('answers a closed port, a reset, a 500 and a refusal with the identical problem', async () => {
    const { register, call, problem } = client(gateway);
    await register('closed', `http://127.0.0.1:${await freePort()}/`).expect(200);
    await register('reset', `${resetter.url}/`).expect(200);
    await register('fail', `${endpoint.url}/fail`).expect(200);
    await register('not-json', `${endpoint.url}/not-json`).expect(200);
    await register('refused', `http://alias.test:${endpointPort()}/`).expect(200);
    const answers = [];
    for (const name of ['closed', 'reset', 'fail', 'not-json', 'refused']) {
      answers.push(problem(await call(name)));
    }
    expect(answers[0]).toEqual({
      status: 502,
      contentType: expect.stringMatching(/^application\/problem\+json/),
      body: UNREACHABLE,
    });
    for (const answer of answers) expect(answer).toEqual(answers[0]);
    // The operator's log keeps what happened.
    expect(logs.text).toContain('ECONNREFUSED');
    expect(logs.text).toContain('answered HTTP 500');

    // A model calling the tool learns no more than a REST caller.
    const run = await request(gateway.url)
      .post('/v1/agent/run')
      .set(auth)
      .send({ tenant_id: 'acme', toolset: 'ops', prompt: '/tool closed {}' })
      .expect(200);
    const tool = (run.body.messages as Array<{ role: string; content: string }>).find(
      (message) => message.role === 'tool',
    );
    expect(tool?.content).toBe('error: tool endpoint unreachable');
  });
});

describe.each(BACKENDS)('egress policy, gateway bound off loopback (%s)', (backend) => {
  const gateway = gatewayForSuite(
    backend,
    { SVC_API_KEY: KEY, SVC_HOST: '0.0.0.0' },
    { logs, egressLookup },
  );

  it('refuses loopback and private addresses at registration', async () => {
    const { register } = client(gateway);
    const port = endpointPort();
    for (const url of [
      `${endpoint.url}/echo`,
      `http://localhost:${port}/echo`,
      `http://[::1]:${port}/echo`,
      `http://[::ffff:127.0.0.1]:${port}/echo`,
      `http://2130706433:${port}/echo`,
      'http://10.0.0.8/',
      'http://192.168.1.1/',
    ]) {
      const res = await register('private', url);
      expect([url, res.status]).toEqual([url, 400]);
      expect(res.body.errors).toEqual([{ path: 'endpoint.url', message: expect.any(String) }]);
    }
    const res = await register('private', `${endpoint.url}/echo`);
    expect(res.body.errors[0].message).toBe(
      'tool endpoint refused: 127.0.0.1, a loopback address, which is refused while the ' +
        'gateway listens off loopback unless SVC_TOOL_ALLOWED_HOSTS allows it',
    );
  });

  it('refuses, when calling, a name that resolves to a loopback address', async () => {
    const { register, call, problem } = client(gateway);
    const before = received('/echo');
    await register('named', `http://tools.test:${endpointPort()}/echo`).expect(200);
    expect(problem(await call('named'))).toMatchObject({ status: 502, body: UNREACHABLE });
    expect(received('/echo')).toBe(before);
  });
});

describe.each(BACKENDS)(
  'egress policy, off loopback with SVC_TOOL_ALLOWED_HOSTS (%s)',
  (backend) => {
    const gateway = gatewayForSuite(
      backend,
      {
        SVC_API_KEY: KEY,
        SVC_HOST: '0.0.0.0',
        SVC_TOOL_ALLOWED_HOSTS: 'tools.test, *.allowed.test, *',
      },
      { logs, egressLookup },
    );

    it('reaches the private hosts the list names, by name or suffix', async () => {
      const { register, call } = client(gateway);
      await register('named', `http://tools.test:${endpointPort()}/echo`).expect(200);
      await register('suffix', `http://svc.allowed.test:${endpointPort()}/echo`).expect(200);
      for (const name of ['named', 'suffix']) {
        expect((await call(name).expect(200)).body.result).toEqual({ received: {} });
      }
    });

    it('does not let * open private addresses', async () => {
      const { register, call, problem } = client(gateway);
      expect((await register('address', `${endpoint.url}/echo`)).status).toBe(400);
      expect((await register('v6', `http://[::1]:${endpointPort()}/echo`)).status).toBe(400);
      const before = received('/echo');
      await register('other', `http://other.test:${endpointPort()}/echo`).expect(200);
      expect(problem(await call('other'))).toMatchObject({ status: 502, body: UNREACHABLE });
      expect(received('/echo')).toBe(before);
      // Metadata stays refused whatever the list says.
      expect((await register('meta', 'http://169.254.169.254/')).status).toBe(400);
    });
  },
);
