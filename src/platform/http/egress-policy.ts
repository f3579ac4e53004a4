import { type AddressVerdict, classifyAddress, parseIp } from './egress-address.js';
import {
  type AllowList,
  allowsAddress,
  allowsName,
  normaliseHostname,
} from './egress-allow-list.js';

/**
 * Names of cloud metadata services (GCP, AWS, Tencent Cloud). They resolve to forbidden
 * addresses anyway; refusing the names too gives a clear 400 at registration.
 */
const METADATA_NAMES: ReadonlySet<string> = new Set([
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'instance-data',
  'instance-data.ec2.internal',
  'metadata.tencentyun.com',
]);

/** RFC 6761: `localhost` and every name below it are loopback. */
const isLoopbackName = (name: string) => name === 'localhost' || name.endsWith('.localhost');

export interface EgressRefusal {
  /** `forbidden`: never allowed; `private`: not from here; `not-allowed`: not in the list. */
  kind: 'forbidden' | 'private' | 'not-allowed';
  /** The host as the URL names it (normalised). */
  host: string;
  /** The address judged (a resolved one, or the literal in the URL). */
  address?: string;
  /** What the destination is (`link-local (cloud metadata)`, `loopback`, …). */
  what: string;
  /** One sentence for messages and logs; carries host and address, so not for every audience. */
  reason: string;
}

export interface EgressPolicyOptions {
  /**
   * Private and loopback destinations are allowed without an allow-list entry: destinations
   * the operator configured, or tenants' while the gateway listens on loopback (a developer's
   * machine, where the tools under development run beside it).
   */
  privateAllowed: boolean;
  /** Narrows destinations to these; undefined: any the rest of the policy allows. */
  allowList?: AllowList;
  /** How messages name the allow-list setting. */
  allowListSetting?: string;
}

/** `10.0.0.1` for a literal, `db.example resolves to 10.0.0.1` for a name; then what it is. */
function described(name: string, address: string, verdict: AddressVerdict): string {
  const shown = verdict.embedded ? `${address} (which carries ${verdict.embedded})` : address;
  const subject = name === normaliseHostname(address) ? shown : `${name} resolves to ${shown}`;
  return `${subject}, ${article(verdict.what)} ${verdict.what} address`;
}

const article = (word: string): string => (/^[aeiou]/i.test(word) ? 'an' : 'a');

/**
 * Where an outgoing HTTP call may connect. `checkAddress` is the decision, made on each address
 * a destination resolves to, at connect time (see egress-agent.ts); `checkUrl` is what can be
 * told from a URL alone, for a clear answer when the URL is registered.
 *
 * 1. Forbidden addresses (link-local, cloud metadata, unspecified, multicast, reserved; IPv6
 *    spellings that carry such an IPv4 address) and metadata names: refused, always.
 * 2. With an allow list: refused unless the host name or the address is listed (or `*`).
 * 3. Private and loopback addresses: refused unless `privateAllowed` or the host name or
 *    address is listed by an entry of its own (`*` does not count).
 */
export class EgressPolicy {
  /** Destinations an operator configured (model endpoint, chat webhooks). */
  static readonly operator = new EgressPolicy({ privateAllowed: true });

  constructor(private readonly options: EgressPolicyOptions) {}

  /** Why a name may not even be resolved (a metadata service's name), or null. */
  checkName(host: string): EgressRefusal | null {
    const name = normaliseHostname(host);
    if (!METADATA_NAMES.has(name)) return null;
    const what = 'cloud metadata';
    return {
      kind: 'forbidden',
      host: name,
      what,
      reason: `${name} is ${article(what)} ${what} name`,
    };
  }

  /** Why `host` may not be reached at `address` (one it resolved to), or null when it may. */
  checkAddress(host: string, address: string): EgressRefusal | null {
    const name = normaliseHostname(host);
    const named = this.checkName(name);
    if (named) return named;
    const verdict = classifyAddress(address) ?? { class: 'forbidden', what: 'not an IP address' };
    const base = { host: name, address, what: verdict.what };
    if (verdict.class === 'forbidden') {
      return {
        ...base,
        kind: 'forbidden',
        reason: `${described(name, address, verdict)}, which is never allowed`,
      };
    }
    const { allowList } = this.options;
    const listed =
      allowList !== undefined && (allowsName(allowList, name) || allowsAddress(allowList, address));
    if (allowList && !allowList.any && !listed) return this.notListed(name, base);
    if (verdict.class === 'private' && !this.options.privateAllowed && !listed) {
      return {
        ...base,
        kind: 'private',
        reason:
          `${described(name, address, verdict)}, which is refused while the gateway listens ` +
          `off loopback unless ${this.setting} allows it`,
      };
    }
    return null;
  }

  /**
   * What the URL alone tells (no DNS): an IP literal is judged like a resolved address, a
   * `localhost` name like 127.0.0.1, a metadata name is refused, and a name the allow list
   * cannot match by name or by any address is refused. Null: decided when connecting.
   */
  checkUrl(url: string): EgressRefusal | null {
    let name: string;
    try {
      name = normaliseHostname(new URL(url).hostname);
    } catch {
      const what = 'unparsable URL';
      return { kind: 'forbidden', host: '', what, reason: 'the URL cannot be parsed' };
    }
    if (parseIp(name)) return this.checkAddress(name, name);
    const named = this.checkName(name);
    if (named) return named;
    if (isLoopbackName(name)) return this.checkAddress(name, '127.0.0.1');
    const { allowList } = this.options;
    if (allowList && !allowList.any && allowList.networks.length === 0) {
      if (!allowsName(allowList, name)) return this.notListed(name, { host: name, what: 'name' });
    }
    return null;
  }

  private get setting(): string {
    return this.options.allowListSetting ?? 'the allow list';
  }

  private notListed(
    name: string,
    base: Pick<EgressRefusal, 'host' | 'address' | 'what'>,
  ): EgressRefusal {
    return { ...base, kind: 'not-allowed', reason: `host ${name} is not in ${this.setting}` };
  }
}

/** True when the gateway listens on a loopback address or `localhost` only. */
export function isLoopbackHost(host: string): boolean {
  let name = normaliseHostname(host);
  try {
    // `127.1`, `0x7f.1` and friends are spelled out the way URLs and sockets read them.
    name = normaliseHostname(
      new URL(`http://${name.includes(':') ? `[${name}]` : name}/`).hostname,
    );
  } catch {
    return false;
  }
  if (name === 'localhost') return true;
  const verdict = classifyAddress(name);
  return verdict?.class === 'private' && verdict.what === 'loopback';
}
