import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { hash, timingSafeEqual } from 'node:crypto';
import { type GatewayConfig, authDisabled } from '../config/gateway-config.js';
import { BUILT_IN_ROLES } from '../config/roles.js';
import type { Principal } from './principal.js';

interface KnownKey {
  sha256: Buffer;
  principal: Principal;
}

/**
 * Every accepted API key: SVC_API_KEY as `root` (role admin, every tenant) plus SVC_KEYS_FILE.
 * Only SHA-256 digests are held, and a presented key is compared with every digest in constant
 * time, so neither the key nor which entry matched leaks through timing.
 */
@Injectable()
export class ApiKeyRegistry {
  readonly enabled: boolean;
  private readonly keys: KnownKey[];

  constructor(config: ConfigService<GatewayConfig, true>) {
    const auth = config.get('auth', { infer: true });
    this.enabled = !authDisabled(auth);
    // A Map, not an object: a role named `constructor` must not find Object's own property.
    const roles = new Map<string, readonly string[]>([
      ...Object.entries(BUILT_IN_ROLES),
      ...Object.entries(auth.keysFile?.roles ?? {}),
    ]);
    const principal = (keyId: string, keyRoles: string[], tenantId?: string): Principal => ({
      keyId,
      tenantId,
      roles: keyRoles,
      permissions: [...new Set(keyRoles.flatMap((role) => roles.get(role) ?? []))],
    });
    this.keys = (auth.keysFile?.keys ?? []).map((key) => ({
      sha256: key.sha256,
      principal: principal(key.id, key.roles, key.tenantId),
    }));
    if (auth.apiKey !== undefined) {
      this.keys.unshift({ sha256: digest(auth.apiKey), principal: principal('root', ['admin']) });
    }
  }

  /** The principal for a presented key, or null when no key matches. */
  authenticate(presented: string): Principal | null {
    const candidate = digest(presented);
    let match: Principal | null = null;
    for (const key of this.keys) {
      if (timingSafeEqual(candidate, key.sha256) && match === null) match = key.principal;
    }
    return match;
  }
}

function digest(key: string): Buffer {
  // One-shot: no Hash object per request.
  return hash('sha256', key, 'buffer');
}
