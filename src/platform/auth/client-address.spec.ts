import { describe, expect, it } from '@jest/globals';
import type { Request } from 'express';
import { clientAddress } from './client-address.js';

const from = (ip: string | undefined) => ({ ip, socket: {} }) as unknown as Request;

describe('clientAddress', () => {
  it('keeps IPv4 addresses and unwraps IPv4-mapped IPv6', () => {
    expect(clientAddress(from('192.0.2.7'))).toBe('192.0.2.7');
    expect(clientAddress(from('::ffff:127.0.0.1'))).toBe('127.0.0.1');
    expect(clientAddress(from('::FFFF:c000:0207'))).toBe('192.0.2.7');
  });

  it('counts IPv6 clients by their /64 network, however the address is written', () => {
    const net = '2001:db8:1:2::/64';
    expect(clientAddress(from('2001:db8:1:2::1'))).toBe(net);
    expect(clientAddress(from('2001:0db8:0001:0002:ffff:0:0:9'))).toBe(net);
    expect(clientAddress(from('2001:db8:1:2:a:b:c:d%eth0'))).toBe(net);
    expect(clientAddress(from('2001:db8:1:3::1'))).toBe('2001:db8:1:3::/64');
    expect(clientAddress(from('::1'))).toBe('0:0:0:0::/64');
    expect(clientAddress(from('64:ff9b::192.0.2.7'))).toBe('64:ff9b:0:0::/64');
  });

  it('says unknown when there is no address', () => {
    expect(clientAddress(from(undefined))).toBe('unknown');
    expect(clientAddress(from('garbage'))).toBe('unknown');
  });
});
