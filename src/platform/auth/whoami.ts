import { KNOWN_PERMISSIONS } from '../config/roles.js';
import type { NamedSchema } from '../openapi/response-schema.js';
import { permits } from './permissions.js';
import type { Principal } from './principal.js';

/** What GET /v1/whoami answers: who the key is and what it may do, never the key itself. */
export interface WhoamiView {
  /** `root` for SVC_API_KEY, the keys file's id, `anonymous` while authentication is off. */
  key_id: string;
  /** The only tenant the key may act for; null for every tenant. */
  tenant_id: string | null;
  roles: string[];
  /** What the roles grant, as configured (`runs:*`, `*`). */
  grants: string[];
  /** Every permission the gateway checks that the grants cover, sorted. */
  permissions: string[];
  /** False while authentication is off (no SVC_API_KEY, no keys file): every request may do all. */
  authenticated: boolean;
}

export function whoamiView(principal: Principal, authenticated: boolean): WhoamiView {
  return {
    key_id: principal.keyId,
    tenant_id: principal.tenantId ?? null,
    roles: [...principal.roles],
    grants: [...principal.permissions],
    permissions: KNOWN_PERMISSIONS.filter((permission) =>
      permits(principal.permissions, permission),
    ).sort(),
    authenticated,
  };
}

const strings = { type: 'array', items: { type: 'string' } };

/** The JSON Schema of `WhoamiView`, for the API description. */
export const WHOAMI_SCHEMA: NamedSchema = {
  name: 'Whoami',
  schema: {
    type: 'object',
    required: ['key_id', 'tenant_id', 'roles', 'grants', 'permissions', 'authenticated'],
    properties: {
      key_id: {
        type: 'string',
        description: 'The key id (`root` for SVC_API_KEY); never the key.',
      },
      tenant_id: {
        type: ['string', 'null'],
        description: 'The only tenant the key may act for; null for every tenant.',
      },
      roles: strings,
      grants: { ...strings, description: 'What the roles grant, as configured.' },
      permissions: {
        ...strings,
        description: 'Every permission the gateway checks that the grants cover.',
      },
      authenticated: {
        type: 'boolean',
        description: 'False while authentication is off: every request may do everything.',
      },
    },
  },
};
