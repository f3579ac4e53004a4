import { isIPv4, isIPv6 } from 'node:net';
import type { Request } from 'express';

/** The eight 16-bit groups of an IPv6 address (an embedded IPv4 tail included). */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase().split('%')[0];
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail) {
    const [a, b, c, d] = tail[1].split('.').map(Number);
    text = `${text.slice(0, -tail[1].length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, rest] = text.split('::');
  const parse = (part: string | undefined) =>
    part ? part.split(':').map((group) => parseInt(group, 16)) : [];
  const left = parse(head);
  const right = parse(rest);
  const zeros = rest === undefined ? [] : new Array<number>(8 - left.length - right.length).fill(0);
  return [...left, ...zeros, ...right];
}

/**
 * Who a request comes from, for limits that count per client: the IPv4 address, or the /64
 * network of an IPv6 address (one host usually holds a whole /64, so counting single IPv6
 * addresses would let it walk past any limit). IPv4-mapped IPv6 (`::ffff:1.2.3.4`) is the IPv4
 * address. `req.ip` already honours SVC_TRUST_PROXY.
 */
export function clientAddress(req: Request): string {
  const address = req.ip ?? req.socket?.remoteAddress ?? '';
  if (isIPv4(address)) return address;
  if (!isIPv6(address)) return 'unknown';
  const groups = ipv6Groups(address);
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return [groups[6] >> 8, groups[6] & 255, groups[7] >> 8, groups[7] & 255].join('.');
  }
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}
