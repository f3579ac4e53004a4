import { describe, expect, it } from '@jest/globals';
import { allowEntryProblem, parseAllowList } from './egress-allow-list.js';
import { EgressPolicy, isLoopbackHost } from './egress-policy.js';

const tenant = (privateAllowed: boolean, allow?: string) =>
  new EgressPolicy({
    privateAllowed,
    allowList: allow === undefined ? undefined : parseAllowList(allow.split(',')),
    allowListSetting: 'SVC_TOOL_ALLOWED_HOSTS',
  });
const kindOf = (policy: EgressPolicy, url: string) => policy.checkUrl(url)?.kind ?? null;

/** Every spelling of a metadata endpoint a URL can carry. */
const METADATA_URLS = [
  'http://169.254.169.254/latest/meta-data/',
  'http://169.254.169.254./latest/meta-data/',
  'http://2852039166/', // decimal
  'http://0xa9fea9fe/', // hex
  'http://0xA9.0xFE.0xA9.0xFE/',
  'http://0251.0376.0251.0376/', // octal
  'http://169.254.43518/', // a.b.c16
  'http://[::ffff:169.254.169.254]/latest/meta-data/',
  'http://[::ffff:a9fe:a9fe]/',
  'http://[0:0:0:0:0:FFFF:A9FE:A9FE]/',
  'http://[::169.254.169.254]/',
  'http://[64:ff9b::a9fe:a9fe]/',
  'http://[64:ff9b::169.254.169.254]/',
  'http://[2002:a9fe:a9fe::]/',
  'http://[2001:0:4136:e378:8000:63bf:5601:5601]/',
  'http://[fe80::1]/',
  'http://[fd00:ec2::254]/latest/meta-data/',
  'http://[fd20:ce::254]/',
  'http://100.100.100.200/latest/meta-data/',
  'http://192.0.0.192/opc/v1/instance/',
  'http://168.63.129.16/machine',
  'http://metadata.google.internal/computeMetadata/v1/',
  'http://METADATA.Google.Internal./computeMetadata/v1/',
  'http://metadata/computeMetadata/v1/',
  'https://instance-data/latest/',
  'http://0.0.0.0:8080/',
  'http://0/',
  'http://[::]/',
  'http://224.0.0.1/',
  'http://255.255.255.255/',
];

describe('EgressPolicy.checkUrl', () => {
  it('refuses every spelling of a metadata, link-local or reserved address, whatever the list', () => {
    for (const policy of [tenant(true), tenant(false), tenant(true, '*'), EgressPolicy.operator]) {
      for (const url of METADATA_URLS) {
        expect([url, kindOf(policy, url)]).toEqual([url, 'forbidden']);
      }
    }
    const listed = tenant(false, '169.254.0.0/16,metadata.google.internal,*.internal');
    expect(kindOf(listed, 'http://169.254.169.254/')).toBe('forbidden');
    expect(kindOf(listed, 'http://metadata.google.internal/')).toBe('forbidden');
    expect(tenant(true).checkUrl('http://[::ffff:a9fe:a9fe]/')?.reason).toBe(
      '::ffff:a9fe:a9fe (which carries 169.254.169.254), a link-local (cloud metadata) address, ' +
        'which is never allowed',
    );
  });

  it('allows private and loopback destinations while the gateway listens on loopback', () => {
    const local = tenant(true);
    for (const url of [
      'http://127.0.0.1:9000/tool',
      'http://localhost:9000/tool',
      'http://[::1]:9000/',
      'http://10.0.0.5/',
      'https://tools.example.com/x',
    ]) {
      expect([url, kindOf(local, url)]).toEqual([url, null]);
    }
  });

  it('refuses private and loopback destinations off loopback, in every spelling', () => {
    const exposed = tenant(false);
    for (const url of [
      'http://127.0.0.1:9000/tool',
      'http://127.1/',
      'http://2130706433/',
      'http://0x7f000001/',
      'http://localhost:9000/',
      'http://LOCALHOST./',
      'http://app.localhost/',
      'http://[::1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://[::ffff:7f00:1]/',
      'http://[64:ff9b::7f00:1]/',
      'http://10.0.0.5/',
      'http://172.20.1.1/',
      'http://192.168.0.1/',
      'http://100.64.0.1/',
      'http://[fd12::1]/',
    ]) {
      expect([url, kindOf(exposed, url)]).toEqual([url, 'private']);
    }
    // A name cannot be judged before it is resolved: that happens when connecting.
    expect(kindOf(exposed, 'https://tools.example.com/x')).toBeNull();
    expect(kindOf(exposed, 'http://8.8.8.8/')).toBeNull();
  });

  it('narrows to the allow list: names, *.suffix, addresses and CIDRs', () => {
    const list = tenant(true, 'tools.example.com,*.svc.cluster.local,10.1.0.0/16,[fd00:1::7]');
    expect(kindOf(list, 'https://TOOLS.example.com./a')).toBeNull();
    expect(kindOf(list, 'http://orders.shop.svc.cluster.local:8080/a')).toBeNull();
    expect(kindOf(list, 'http://10.1.2.3/')).toBeNull();
    expect(kindOf(list, 'http://[fd00:1::7]/')).toBeNull();
    expect(kindOf(list, 'http://[::ffff:10.1.2.3]/')).toBeNull();
    expect(kindOf(list, 'http://10.2.0.1/')).toBe('not-allowed');
    expect(kindOf(list, 'http://127.0.0.1/')).toBe('not-allowed');
    // With networks listed, a name may still resolve into one: decided when connecting.
    expect(kindOf(list, 'http://evil-example.com/')).toBeNull();
    const namesOnly = tenant(true, 'tools.example.com,*.svc.cluster.local');
    expect(namesOnly.checkUrl('http://evil-example.com/a')?.reason).toBe(
      'host evil-example.com is not in SVC_TOOL_ALLOWED_HOSTS',
    );
    expect(kindOf(namesOnly, 'http://svc.cluster.local/')).toBe('not-allowed');
    expect(kindOf(namesOnly, 'http://xsvc.cluster.local/')).toBe('not-allowed');
  });

  it('lets an explicit entry, but not *, open a private destination off loopback', () => {
    expect(kindOf(tenant(false, '*'), 'http://127.0.0.1/')).toBe('private');
    expect(kindOf(tenant(false, '*'), 'https://tools.example.com/')).toBeNull();
    expect(kindOf(tenant(false, '127.0.0.0/8'), 'http://127.0.0.1/')).toBeNull();
    expect(kindOf(tenant(false, 'localhost'), 'http://localhost:8080/')).toBeNull();
    expect(kindOf(tenant(false, '::1'), 'http://[::1]:8080/')).toBeNull();
  });

  it('refuses an unparsable URL instead of throwing', () => {
    expect(kindOf(tenant(true), 'http://[fe80::1%25eth0]/')).toBe('forbidden');
    expect(kindOf(tenant(true), 'not a url')).toBe('forbidden');
  });
});

describe('EgressPolicy.checkAddress (resolved addresses)', () => {
  it('judges a name by what it resolved to', () => {
    expect(tenant(true).checkAddress('innocent.example.com', '169.254.169.254')).toMatchObject({
      kind: 'forbidden',
      host: 'innocent.example.com',
    });
    expect(tenant(false).checkAddress('innocent.example.com', '10.0.0.1')?.reason).toBe(
      'innocent.example.com resolves to 10.0.0.1, a private network address, which is refused ' +
        'while the gateway listens off loopback unless SVC_TOOL_ALLOWED_HOSTS allows it',
    );
    expect(tenant(false).checkAddress('innocent.example.com', '93.184.215.14')).toBeNull();
    expect(
      tenant(false, 'innocent.example.com').checkAddress('innocent.example.com', '10.0.0.1'),
    ).toBeNull();
    expect(tenant(false, '10.0.0.0/8').checkAddress('innocent.example.com', '10.0.0.1')).toBeNull();
    expect(
      tenant(false, '10.0.0.0/8').checkAddress('innocent.example.com', '::ffff:a00:1'),
    ).toBeNull();
    expect(EgressPolicy.operator.checkAddress('model.internal', '10.0.0.1')).toBeNull();
    expect(EgressPolicy.operator.checkAddress('model.internal', 'fe80::1')?.kind).toBe('forbidden');
    expect(EgressPolicy.operator.checkName('Metadata.Google.Internal.')?.kind).toBe('forbidden');
  });
});

describe('allow-list entries', () => {
  it('accepts names, *.suffix, IPs, CIDRs and *; names the bad entry otherwise', () => {
    for (const entry of [
      '*',
      'tools.example.com',
      'tools.example.com.',
      '*.svc.cluster.local',
      'my_host',
      '10.0.0.0/8',
      '10.0.0.7',
      '::1',
      '[::1]',
      'fd00::/8',
      ' Tools.Example.COM ',
    ]) {
      expect([entry, allowEntryProblem(entry)]).toEqual([entry, null]);
    }
    for (const entry of [
      '',
      'http://x',
      'a b',
      '10.0.0.0/33',
      'fd00::/129',
      '*.',
      'x:80',
      '*x.com',
    ]) {
      expect(allowEntryProblem(entry)).toContain(`"${entry}"`);
    }
  });
});

describe('isLoopbackHost', () => {
  it('knows the loopback spellings a server may be bound to', () => {
    for (const host of [
      '127.0.0.1',
      '127.0.0.2',
      'localhost',
      'LOCALHOST.',
      '::1',
      '[::1]',
      '127.1',
      '::ffff:127.0.0.1',
    ]) {
      expect([host, isLoopbackHost(host)]).toEqual([host, true]);
    }
    for (const host of ['0.0.0.0', '::', '10.0.0.1', 'example.com', 'myhost', '']) {
      expect([host, isLoopbackHost(host)]).toEqual([host, false]);
    }
  });
});
