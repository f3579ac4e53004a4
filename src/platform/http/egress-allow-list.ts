import { bareAddress, embeddedIpv4, inPrefix, parseIp } from './egress-address.js';

interface Network {
  prefix: Uint8Array;
  bits: number;
}

/**
 * An operator's list of destinations (SVC_TOOL_ALLOWED_HOSTS). Entries:
 * - `*`: any destination (lifts the narrowing only; see EgressPolicy for private addresses);
 * - `name`: that host name exactly (case and a trailing dot ignored);
 * - `*.suffix`: any name below `suffix` (not `suffix` itself);
 * - an IP address or CIDR (`10.0.0.7`, `10.0.0.0/8`, `fd12:3456::/48`, `[::1]`): destinations
 *   whose address, as resolved when connecting, lies in it, whatever name the URL used.
 * Ports are not part of an entry.
 */
export interface AllowList {
  any: boolean;
  names: ReadonlySet<string>;
  /** `.suffix`, with the leading dot. */
  suffixes: readonly string[];
  networks: readonly Network[];
}

const NAME =
  /^(?=.{1,253}$)[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

/** `Example.COM.` → `example.com`; `[::1]` → `::1`. */
export function normaliseHostname(host: string): string {
  return bareAddress(host.toLowerCase()).replace(/\.$/, '');
}

function parseNetwork(entry: string): Network | null {
  const slash = entry.lastIndexOf('/');
  const address = slash === -1 ? entry : entry.slice(0, slash);
  const prefix = parseIp(address);
  if (!prefix || address.includes('%')) return null;
  if (slash === -1) return { prefix, bits: prefix.length * 8 };
  const bits = entry.slice(slash + 1);
  if (!/^\d{1,3}$/.test(bits) || Number(bits) > prefix.length * 8) return null;
  return { prefix, bits: Number(bits) };
}

/** Why `entry` is not a valid allow-list entry, or null when it is. */
export function allowEntryProblem(entry: string): string | null {
  const value = entry.trim().toLowerCase();
  if (value === '*' || parseNetwork(value)) return null;
  const name = value.startsWith('*.') ? value.slice(2) : value;
  if (NAME.test(name.replace(/\.$/, ''))) return null;
  return `"${entry}" is not a host name, *.suffix, IP address, CIDR or *`;
}

/** Parses validated entries (see allowEntryProblem). */
export function parseAllowList(entries: readonly string[]): AllowList {
  const names = new Set<string>();
  const suffixes: string[] = [];
  const networks: Network[] = [];
  let any = false;
  for (const raw of entries) {
    const entry = raw.trim().toLowerCase();
    const network = parseNetwork(entry);
    if (entry === '*') any = true;
    else if (network) networks.push(network);
    else if (entry.startsWith('*.')) suffixes.push(normaliseHostname(entry.slice(1)));
    else names.add(normaliseHostname(entry));
  }
  return { any, names, suffixes, networks };
}

/** The list names `host` (a name, or an IP literal as written in a URL) by name or suffix. */
export function allowsName(list: AllowList, host: string): boolean {
  const name = normaliseHostname(host);
  return list.names.has(name) || list.suffixes.some((suffix) => name.endsWith(suffix));
}

/** `address` (or the IPv4 address an IPv4-mapped one stands for) lies in a listed network. */
export function allowsAddress(list: AllowList, address: string): boolean {
  const bytes = parseIp(address);
  if (!bytes) return false;
  const candidates = [bytes];
  const mapped = bytes.length === 16 && bytes[10] === 0xff && bytes[11] === 0xff;
  if (mapped && bytes.subarray(0, 10).every((byte) => byte === 0)) {
    candidates.push(parseIp(embeddedIpv4(bytes)[0])!);
  }
  return list.networks.some((network) =>
    candidates.some((candidate) => inPrefix(candidate, network.prefix, network.bits)),
  );
}
