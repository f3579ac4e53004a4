import { describe, expect, it } from '@jest/globals';
import { classifyAddress, embeddedIpv4, parseIp } from './egress-address.js';

const classOf = (address: string) => classifyAddress(address)?.class;

describe('classifyAddress', () => {
  it('forbids link-local and every known cloud metadata address', () => {
    for (const address of [
      '169.254.169.254', // AWS, GCP, Azure, OCI, OpenStack, DigitalOcean, …
      '169.254.170.2', // ECS task metadata
      '169.254.0.23', // Tencent Cloud
      '100.100.100.200', // Alibaba Cloud
      '192.0.0.192', // Oracle Cloud
      '168.63.129.16', // Azure WireServer
      'fe80::1',
      'FE80::A9FE:A9FE',
      'fe80::1%eth0',
      '[fe80::1]',
      'fd00:ec2::254', // AWS IMDS over IPv6
      'fd00:ec2::253',
      'fd20:ce::254', // GCP metadata over IPv6
    ]) {
      expect([address, classOf(address)]).toEqual([address, 'forbidden']);
    }
  });

  it('forbids unspecified, multicast, broadcast and reserved addresses', () => {
    for (const address of [
      '0.0.0.0',
      '0.1.2.3',
      '224.0.0.1',
      '239.255.255.250',
      '255.255.255.255',
      '240.0.0.1',
      '::',
      'ff02::1',
      '100::1',
    ]) {
      expect([address, classOf(address)]).toEqual([address, 'forbidden']);
    }
  });

  it('judges IPv6 spellings that carry an IPv4 address by that address', () => {
    const metadata = [
      '::ffff:169.254.169.254', // IPv4-mapped, dotted
      '::ffff:a9fe:a9fe', // IPv4-mapped, hex
      '0:0:0:0:0:ffff:a9fe:a9fe',
      '[::FFFF:A9FE:A9FE]',
      '::169.254.169.254', // IPv4-compatible
      '::a9fe:a9fe',
      '::ffff:0:a9fe:a9fe', // SIIT
      '64:ff9b::a9fe:a9fe', // NAT64
      '64:ff9b::169.254.169.254',
      '64:ff9b:1:a9fe:a9:fe00::', // local-use NAT64, /48 layout
      '64:ff9b:1::a9fe:a9fe', // local-use NAT64, /96 layout
      '2002:a9fe:a9fe::', // 6to4
      '2002:a9fe:a9fe:1::1',
      '2001:0:a9fe:a9fe::1', // Teredo server
      '2001:0:4136:e378:8000:63bf:5601:5601', // Teredo client: ~5601:5601 = 169.254.169.254
      '::ffff:100.100.100.200',
      '64:ff9b::c000:c0', // 192.0.0.192
      '2002:a83f:8110::', // 168.63.129.16
      '::ffff:0.0.0.0',
    ];
    for (const address of metadata) {
      expect([address, classOf(address)]).toEqual([address, 'forbidden']);
    }
    expect(classifyAddress('::ffff:a9fe:a9fe')).toMatchObject({ embedded: '169.254.169.254' });
    for (const address of [
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '64:ff9b::a00:1',
      '2002:c0a8:101::',
    ]) {
      expect([address, classOf(address)]).toEqual([address, 'private']);
    }
    expect(classOf('::ffff:8.8.8.8')).toBe('public');
    expect(classOf('64:ff9b::808:808')).toBe('public');
    expect(classOf('2002:808:808::1')).toBe('public');
  });

  it('sorts loopback and non-global networks as private', () => {
    for (const address of [
      '127.0.0.1',
      '127.8.9.10',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '100.64.0.1',
      '100.127.255.255',
      '192.0.0.8',
      '198.18.0.1',
      '::1',
      '[::1]',
      'fc00::1',
      'fd12:3456::1',
      'fec0::1',
      '2001:db8::1',
    ]) {
      expect([address, classOf(address)]).toEqual([address, 'private']);
    }
    expect(classifyAddress('::1')?.what).toBe('loopback');
    // Alibaba's metadata address sits inside CGNAT space: its neighbours are only private.
    expect(classOf('100.100.100.201')).toBe('private');
  });

  it('lets public addresses through and is not fooled by neighbours of the ranges', () => {
    for (const address of [
      '8.8.8.8',
      '1.1.1.1',
      '172.32.0.1',
      '169.253.255.255',
      '169.255.0.1',
      '168.63.129.17',
      '100.128.0.1',
      '2606:4700::1111',
      '2001:4860:4860::8888',
    ]) {
      expect([address, classOf(address)]).toEqual([address, 'public']);
    }
  });

  it('does not take names or non-canonical IPv4 spellings for addresses', () => {
    for (const text of ['example.com', '0xa9fea9fe', '2852039166', '0251.0376.0251.0376', '']) {
      expect(parseIp(text)).toBeNull();
      expect(classifyAddress(text)).toBeNull();
    }
  });

  it('extracts the IPv4 address of every embedding', () => {
    const embedded = (text: string) => embeddedIpv4(parseIp(text)!);
    expect(embedded('::ffff:1.2.3.4')).toEqual(['1.2.3.4']);
    expect(embedded('64:ff9b::102:304')).toEqual(['1.2.3.4']);
    expect(embedded('2002:102:304::')).toEqual(['1.2.3.4']);
    expect(embedded('2001:0:102:304:0:0:fefd:fcfb')).toEqual(['1.2.3.4', '1.2.3.4']);
    expect(embedded('2606:4700::1111')).toEqual([]);
  });
});
