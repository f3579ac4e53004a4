import { isIP } from 'node:net';
import { ValidationOptions, registerDecorator } from 'class-validator';

/**
 * Which proxies may tell the gateway the client's address (`X-Forwarded-For`), as Express's
 * `trust proxy` setting: `false` (default: the TCP peer is the client), a number of proxy hops in
 * front of the gateway, or the proxies' addresses (IPs, CIDRs, `loopback`, `linklocal`,
 * `uniquelocal`). Never `true`: trusting every hop lets any client name its own address and
 * escape the per-address limit on failed authentication.
 */
export type TrustProxy = false | number | string[];

const PRESETS = new Set(['loopback', 'linklocal', 'uniquelocal']);
const MAX_HOPS = 10;

function isProxyAddress(item: string): boolean {
  if (PRESETS.has(item)) return true;
  const [address, prefix, ...rest] = item.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  if (!/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (family === 4 ? 32 : 128);
}

/** The setting for a (validated) SVC_TRUST_PROXY value; undefined for a value it refuses. */
export function parseTrustProxy(value: string): TrustProxy | undefined {
  const text = value.trim().toLowerCase();
  if (['false', 'off', 'no', '0'].includes(text)) return false;
  if (/^\d+$/.test(text)) {
    const hops = Number(text);
    return hops >= 1 && hops <= MAX_HOPS ? hops : undefined;
  }
  const items = text.split(',').map((item) => item.trim());
  return items.every(isProxyAddress) ? items : undefined;
}

export function IsTrustProxy(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isTrustProxy',
      target: target.constructor,
      propertyName: String(propertyName),
      options: {
        message:
          `must be false, a number of proxy hops (1 to ${MAX_HOPS}) or a comma-separated list ` +
          'of proxy addresses (IP, CIDR, loopback, linklocal, uniquelocal)',
        ...options,
      },
      validator: {
        validate: (value: unknown) =>
          typeof value === 'string' && parseTrustProxy(value) !== undefined,
      },
    });
}
