import { type LookupAddress, promises as dns } from 'node:dns';
import { type LookupFunction, isIP } from 'node:net';
import type { Agent, buildConnector } from 'undici';
import type { EgressPolicy, EgressRefusal } from './egress-policy.js';
import { undici } from './undici.js';

/** Resolves a host name to every address it has (the system resolver, /etc/hosts included). */
export type EgressLookup = (hostname: string) => Promise<LookupAddress[]>;

export const systemLookup: EgressLookup = (hostname) =>
  dns.lookup(hostname, { all: true, order: 'verbatim' });

/**
 * A connection the egress policy refused. Its message says only what kind of address it was,
 * so it may travel into errors an operator's destinations produce; `refusal` has the details
 * for the log.
 */
export class EgressRefusedError extends Error {
  readonly code = 'ERR_EGRESS_REFUSED';

  constructor(readonly refusal: EgressRefusal) {
    super(`connection refused by the egress policy (${refusal.kind}: ${refusal.what})`);
    this.name = 'EgressRefusedError';
  }
}

/**
 * Whether a failed call was refused by the egress policy (the error, or what it wraps). Retrying
 * cannot help: the destination stays where it is until the configuration changes.
 */
export function isEgressRefusal(error: unknown): boolean {
  for (let cause = error, hops = 0; cause && hops < 5; hops++) {
    if ((cause as { code?: unknown }).code === 'ERR_EGRESS_REFUSED') return true;
    cause = (cause as { cause?: unknown }).cause;
  }
  return false;
}

function notFound(hostname: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
  error.code = 'ENOTFOUND';
  return error;
}

const familyOf = (family: unknown): number | undefined =>
  family === 4 || family === 'IPv4' ? 4 : family === 6 || family === 'IPv6' ? 6 : undefined;

/**
 * A `lookup` for net/tls.connect that resolves the name, judges every address it resolved to
 * (one refused address refuses the name: a name that mixes a public address with a metadata
 * one is an attack, not an accident), and hands the socket only addresses it judged, so nothing
 * can change between the check and the connect.
 */
export function guardedLookup(policy: EgressPolicy, resolve: EgressLookup): LookupFunction {
  return (hostname, options, callback) => {
    const answer = async (): Promise<LookupAddress[]> => {
      const named = policy.checkName(hostname);
      if (named) throw new EgressRefusedError(named);
      const addresses = await resolve(hostname);
      for (const { address } of addresses) {
        const refusal = policy.checkAddress(hostname, address);
        if (refusal) throw new EgressRefusedError(refusal);
      }
      const family = familyOf(options.family);
      const usable = family ? addresses.filter((entry) => entry.family === family) : addresses;
      if (usable.length === 0) throw notFound(hostname);
      return usable;
    };
    answer().then(
      (usable) =>
        options.all ? callback(null, usable) : callback(null, usable[0].address, usable[0].family),
      (error: NodeJS.ErrnoException) => callback(error, ''),
    );
  };
}

/**
 * An undici dispatcher (keep-alive pools per origin) whose every new connection is checked by
 * `policy` at connect time: names through guardedLookup, IP literals (which skip any lookup)
 * here. A kept-alive connection stays with the address it was checked for; the next connection
 * resolves and checks again, so a name that re-resolves to a refused address is refused then.
 */
export async function createEgressAgent(
  policy: EgressPolicy,
  resolve: EgressLookup = systemLookup,
): Promise<Agent> {
  const { Agent, buildConnector } = await undici.load();
  const connectChecked = buildConnector({ lookup: guardedLookup(policy, resolve) });
  const connect: buildConnector.connector = (target, callback) => {
    if (isIP(target.hostname)) {
      const refusal = policy.checkAddress(target.hostname, target.hostname);
      if (refusal) {
        // Asynchronously, as a socket error would arrive.
        process.nextTick(() => callback(new EgressRefusedError(refusal), null));
        return;
      }
    }
    connectChecked(target, callback);
  };
  return new Agent({ keepAliveTimeout: 10_000, connect });
}
