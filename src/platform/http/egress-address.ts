import { isIPv4, isIPv6 } from 'node:net';

/**
 * Where an outgoing call may go, judged by the destination's IP address:
 * - `forbidden`: never, for any caller: link-local, cloud metadata services, "this network",
 *   multicast, broadcast and reserved space;
 * - `private`: loopback and networks that are not globally routable (RFC 1918, CGNAT, ULA, …):
 *   the gateway's own neighbourhood, refused for tenants' destinations off loopback;
 * - `public`: the rest.
 */
export type AddressClass = 'forbidden' | 'private' | 'public';

export interface AddressVerdict {
  class: AddressClass;
  /** What the address is, for messages and logs: `link-local`, `cloud metadata`, `loopback`. */
  what: string;
  /** The IPv4 address embedded in an IPv6 one that decided the verdict, when one did. */
  embedded?: string;
}

/** An address as 4 or 16 bytes. */
type Bytes = Uint8Array;

interface Range {
  prefix: Bytes;
  bits: number;
  verdict: AddressVerdict;
}

function range(cidr: string, klass: AddressClass, what: string): Range {
  const [address, bits] = cidr.split('/');
  const prefix = parseIp(address);
  if (!prefix) throw new Error(`bad range ${cidr}`);
  return { prefix, bits: Number(bits ?? prefix.length * 8), verdict: { class: klass, what } };
}

/**
 * The most specific entries first: the first range that contains an address decides. Built on
 * the first check (parsing them compiles node's IPv6 pattern, a few milliseconds of every
 * start otherwise).
 */
const ipv4Ranges = (): readonly Range[] => [
  // Metadata services that do not live on link-local addresses.
  range('100.100.100.200/32', 'forbidden', 'cloud metadata (Alibaba Cloud)'),
  range('192.0.0.192/32', 'forbidden', 'cloud metadata (Oracle Cloud)'),
  range('168.63.129.16/32', 'forbidden', 'cloud platform (Azure WireServer)'),
  // 169.254.169.254 (AWS, GCP, Azure, OCI, OpenStack, …), 169.254.170.2 (ECS), 169.254.0.23.
  range('169.254.0.0/16', 'forbidden', 'link-local (cloud metadata)'),
  // Connecting to 0.0.0.0 reaches the local host on Linux.
  range('0.0.0.0/8', 'forbidden', 'unspecified ("this network")'),
  range('224.0.0.0/4', 'forbidden', 'multicast'),
  range('255.255.255.255/32', 'forbidden', 'broadcast'),
  range('240.0.0.0/4', 'forbidden', 'reserved'),
  range('127.0.0.0/8', 'private', 'loopback'),
  range('10.0.0.0/8', 'private', 'private network'),
  range('172.16.0.0/12', 'private', 'private network'),
  range('192.168.0.0/16', 'private', 'private network'),
  range('100.64.0.0/10', 'private', 'shared address space (CGNAT)'),
  range('192.0.0.0/24', 'private', 'IETF protocol assignment'),
  range('198.18.0.0/15', 'private', 'benchmarking network'),
  range('192.0.2.0/24', 'private', 'documentation network'),
  range('198.51.100.0/24', 'private', 'documentation network'),
  range('203.0.113.0/24', 'private', 'documentation network'),
  range('192.88.99.0/24', 'private', '6to4 relay anycast'),
];

const ipv6Ranges = (): readonly Range[] => [
  range('::/128', 'forbidden', 'unspecified'),
  range('::1/128', 'private', 'loopback'),
  range('fe80::/10', 'forbidden', 'link-local'),
  // AWS: instance metadata fd00:ec2::254, DNS ::253, time ::123.
  range('fd00:ec2::/32', 'forbidden', 'cloud metadata (AWS)'),
  range('fd20:ce::254/128', 'forbidden', 'cloud metadata (GCP)'),
  range('ff00::/8', 'forbidden', 'multicast'),
  range('100::/64', 'forbidden', 'discard-only'),
  range('fc00::/7', 'private', 'unique local (ULA)'),
  range('fec0::/10', 'private', 'site-local'),
  range('64:ff9b:1::/48', 'private', 'local-use NAT64'),
  range('2001:db8::/32', 'private', 'documentation network'),
  range('3fff::/20', 'private', 'documentation network'),
  range('2001:2::/48', 'private', 'benchmarking network'),
  range('2001:10::/28', 'private', 'ORCHID'),
  range('2001:20::/28', 'private', 'ORCHIDv2'),
];

let rangeTables: { 4: readonly Range[]; 16: readonly Range[] } | undefined;

const PUBLIC: AddressVerdict = { class: 'public', what: 'public' };
const SEVERITY: Record<AddressClass, number> = { public: 0, private: 1, forbidden: 2 };

function parseIpv4(text: string): Bytes {
  return Uint8Array.from(text.split('.').map(Number));
}

/** 8 groups of 16 bits; `::` expanded, a trailing dotted quad turned into two groups. */
function parseIpv6(text: string): Bytes {
  const groups = (part: string): number[] =>
    part === ''
      ? []
      : part.split(':').flatMap((group) => {
          if (!group.includes('.')) return [parseInt(group, 16)];
          const [a, b, c, d] = parseIpv4(group);
          return [(a << 8) | b, (c << 8) | d];
        });
  const [head, tail] = text.split('::');
  const front = groups(head);
  const back = tail === undefined ? [] : groups(tail);
  const words = [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
  const bytes = new Uint8Array(16);
  words.forEach((word, i) => {
    bytes[2 * i] = word >> 8;
    bytes[2 * i + 1] = word & 0xff;
  });
  return bytes;
}

/** `[…]` brackets and a `%zone` suffix removed: the address a socket would use. */
export function bareAddress(text: string): string {
  const unbracketed = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const zone = unbracketed.indexOf('%');
  return zone === -1 ? unbracketed : unbracketed.slice(0, zone);
}

/**
 * The bytes of an IP address in canonical text form (dotted-quad IPv4, any IPv6 spelling, with
 * or without brackets and zone id), or null for anything else. Other IPv4 spellings (`0xa9fea9fe`,
 * `2852039166`, `0251.0376.0251.0376`) are not addresses here: URLs normalise them to dotted form
 * before they get here, and a resolver that accepts them answers with a canonical address.
 */
export function parseIp(text: string): Bytes | null {
  const bare = bareAddress(text);
  if (isIPv4(bare)) return parseIpv4(bare);
  if (isIPv6(bare)) return parseIpv6(bare);
  return null;
}

export function formatIpv4(bytes: Bytes, at = 0): string {
  return Array.from(bytes.subarray(at, at + 4)).join('.');
}

/** True when the first `bits` bits of `address` equal those of `prefix` (same family). */
export function inPrefix(address: Bytes, prefix: Bytes, bits: number): boolean {
  if (address.length !== prefix.length) return false;
  const whole = bits >> 3;
  for (let i = 0; i < whole; i++) if (address[i] !== prefix[i]) return false;
  const rest = bits & 7;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return (address[whole] & mask) === (prefix[whole] & mask);
}

const startsWith = (bytes: Bytes, ...head: number[]) => head.every((byte, i) => bytes[i] === byte);
const zeros = (bytes: Bytes, from: number, to: number) =>
  bytes.subarray(from, to).every((byte) => byte === 0);

/**
 * The IPv4 addresses an IPv6 address carries to an IPv4 host: IPv4-mapped (`::ffff:a.b.c.d`),
 * IPv4-compatible (`::a.b.c.d`), SIIT (`::ffff:0:a.b.c.d`), NAT64 (`64:ff9b::/96` and every RFC
 * 6052 layout of the local-use `64:ff9b:1::/48`), 6to4 (`2002::/16`) and Teredo (`2001::/32`,
 * server and obfuscated client). A caller judges them like the IPv4 address itself.
 */
export function embeddedIpv4(v6: Bytes): string[] {
  const last32 = formatIpv4(v6, 12);
  if (zeros(v6, 0, 10) && v6[10] === 0xff && v6[11] === 0xff) return [last32]; // mapped
  if (zeros(v6, 0, 12)) return [last32]; // compatible (:: and ::1 are judged before)
  if (zeros(v6, 0, 8) && v6[8] === 0xff && v6[9] === 0xff && zeros(v6, 10, 12)) return [last32];
  if (startsWith(v6, 0x00, 0x64, 0xff, 0x9b) && zeros(v6, 4, 12)) return [last32];
  if (startsWith(v6, 0x00, 0x64, 0xff, 0x9b, 0x00, 0x01)) {
    // RFC 6052 section 2.2: bits 64-71 are skipped; prefixes /48, /56, /64 and /96 fit here.
    const skipU = (octets: number[]) => octets.map((i) => v6[i]).join('.');
    return [skipU([6, 7, 9, 10]), skipU([7, 9, 10, 11]), skipU([9, 10, 11, 12]), last32];
  }
  if (startsWith(v6, 0x20, 0x02)) return [formatIpv4(v6, 2)]; // 6to4
  if (startsWith(v6, 0x20, 0x01, 0x00, 0x00)) {
    const client = Array.from(v6.subarray(12, 16), (byte) => byte ^ 0xff).join('.');
    return [formatIpv4(v6, 4), client]; // Teredo server, client
  }
  return [];
}

function lookupRange(bytes: Bytes): AddressVerdict {
  rangeTables ??= { 4: ipv4Ranges(), 16: ipv6Ranges() };
  const ranges = bytes.length === 4 ? rangeTables[4] : rangeTables[16];
  return ranges.find((r) => inPrefix(bytes, r.prefix, r.bits))?.verdict ?? PUBLIC;
}

/**
 * What an IP address is (see AddressClass), or null when `text` is not an IP address. An IPv6
 * address that embeds IPv4 addresses is at least as restricted as the worst of them.
 */
export function classifyAddress(text: string): AddressVerdict | null {
  const bytes = parseIp(text);
  if (!bytes) return null;
  let verdict = lookupRange(bytes);
  // `::` and `::1` are themselves, not IPv4-compatible spellings of 0.0.0.0 and 0.0.0.1.
  if (bytes.length === 16 && !(zeros(bytes, 0, 15) && bytes[15] <= 1)) {
    for (const v4 of embeddedIpv4(bytes)) {
      const inner = lookupRange(parseIpv4(v4));
      if (SEVERITY[inner.class] > SEVERITY[verdict.class]) verdict = { ...inner, embedded: v4 };
    }
  }
  return verdict;
}
