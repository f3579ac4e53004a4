import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { LookupAddress } from 'node:dns';
import { type Server, createServer } from 'node:http';
import { type AddressInfo, isIP } from 'node:net';
import { request } from 'undici';
import { type EgressLookup, EgressRefusedError, createEgressAgent } from './egress-agent.js';
import { parseAllowList } from './egress-allow-list.js';
import { EgressPolicy } from './egress-policy.js';
import { operatorEgress } from './outbound.js';

/** A resolver for names that exist only in this test; it records what it was asked. */
function mappedLookup(names: Map<string, string[]>): EgressLookup & { asked: string[] } {
  const asked: string[] = [];
  const lookup = (hostname: string): Promise<LookupAddress[]> => {
    asked.push(hostname);
    const addresses = names.get(hostname) ?? [];
    return Promise.resolve(addresses.map((address) => ({ address, family: isIP(address) })));
  };
  return Object.assign(lookup, { asked });
}

async function refusalOf(call: Promise<unknown>): Promise<EgressRefusedError['refusal']> {
  try {
    await call;
  } catch (error) {
    if (error instanceof EgressRefusedError) return error.refusal;
    throw error;
  }
  throw new Error('expected the egress policy to refuse the connection');
}

describe('createEgressAgent', () => {
  let server: Server;
  let port: number;
  let received = 0;
  const names = new Map<string, string[]>();
  const lookup = mappedLookup(names);
  const exposed = createEgressAgent(new EgressPolicy({ privateAllowed: false }), lookup);
  const local = createEgressAgent(new EgressPolicy({ privateAllowed: true }), lookup);
  const listed = createEgressAgent(
    new EgressPolicy({ privateAllowed: false, allowList: parseAllowList(['tools.test']) }),
    lookup,
  );
  const get = async (agent: typeof local, host: string) =>
    request(`http://${host}:${port}/`, { dispatcher: await agent }).then(async (response) => {
      await response.body.text();
      return response.statusCode;
    });

  beforeAll(async () => {
    // Every answer closes its connection, so each call resolves and connects anew.
    server = createServer((_req, res) => {
      received += 1;
      res.writeHead(200, { connection: 'close' }).end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await Promise.all([exposed, local, listed].map(async (agent) => (await agent).close()));
    server.close();
  });

  it('connects to a name whose every address passes', async () => {
    names.set('tools.test', ['127.0.0.1']);
    expect(await get(local, 'tools.test')).toBe(200);
    expect(await get(listed, 'tools.test')).toBe(200);
  });

  it('refuses a name that resolves to a refused address, before any byte is sent', async () => {
    const before = received;
    names.set('tools.test', ['127.0.0.1']);
    expect(await refusalOf(get(exposed, 'tools.test'))).toMatchObject({
      kind: 'private',
      host: 'tools.test',
      address: '127.0.0.1',
    });
    names.set('alias.test', ['169.254.169.254']);
    expect((await refusalOf(get(local, 'alias.test'))).kind).toBe('forbidden');
    // One forbidden address among good ones refuses the name.
    names.set('mixed.test', ['127.0.0.1', '::ffff:169.254.169.254']);
    expect((await refusalOf(get(local, 'mixed.test'))).kind).toBe('forbidden');
    names.set('mapped.test', ['::ffff:7f00:1']);
    expect((await refusalOf(get(exposed, 'mapped.test'))).kind).toBe('private');
    expect(received).toBe(before);
  });

  it('checks again when a name re-resolves for a new connection', async () => {
    names.set('flip.test', ['127.0.0.1']);
    expect(await get(local, 'flip.test')).toBe(200);
    names.set('flip.test', ['169.254.169.254']);
    expect((await refusalOf(get(local, 'flip.test'))).address).toBe('169.254.169.254');
    names.set('flip.test', ['127.0.0.1']);
    expect(await get(local, 'flip.test')).toBe(200);
  });

  it('checks IP literals, which skip the lookup, in every spelling', async () => {
    const asked = lookup.asked.length;
    for (const host of [
      '169.254.169.254',
      '[::ffff:169.254.169.254]',
      '[::ffff:a9fe:a9fe]',
      '[::169.254.169.254]',
      '[64:ff9b::a9fe:a9fe]',
      '[2002:a9fe:a9fe::]',
      '2852039166',
      '0xa9fea9fe',
      '100.100.100.200',
      '0.0.0.0',
    ]) {
      expect([host, (await refusalOf(get(local, host))).kind]).toEqual([host, 'forbidden']);
    }
    expect((await refusalOf(get(exposed, '[::ffff:127.0.0.1]'))).kind).toBe('private');
    expect((await refusalOf(get(exposed, '127.0.0.1'))).kind).toBe('private');
    expect(lookup.asked.length).toBe(asked);
    // IPv4-mapped addresses do reach IPv4 hosts: allowed, it connects.
    expect(await get(local, '[::ffff:127.0.0.1]')).toBe(200);
  });

  it('never resolves a metadata service name', async () => {
    names.set('metadata.google.internal', ['127.0.0.1']);
    expect((await refusalOf(get(local, 'metadata.google.internal'))).kind).toBe('forbidden');
    expect(lookup.asked).not.toContain('metadata.google.internal');
  });

  it('answers an unknown name as not found', async () => {
    await expect(get(local, 'nowhere.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });
});

describe('operatorEgress', () => {
  it('refuses metadata addresses but reaches private ones (operators choose those)', async () => {
    const server = createServer((_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      for (const url of [
        'http://[::ffff:a9fe:a9fe]/latest',
        'http://100.100.100.200/',
        'http://metadata/',
      ]) {
        await expect(request(url, { dispatcher: await operatorEgress() })).rejects.toBeInstanceOf(
          EgressRefusedError,
        );
      }
      const response = await request(`http://localhost:${port}/`, {
        dispatcher: await operatorEgress(),
      });
      expect(await response.body.text()).toBe('ok');
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
