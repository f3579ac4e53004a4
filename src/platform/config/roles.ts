/**
 * What a key can be granted (CONTRACT 2): the permissions the gateway checks and the built-in
 * roles. Kept in config, the lowest layer, because the keys file is checked against it at boot;
 * the AuthGuard grants from the same tables. A route that checks a new permission must list it
 * here (permissions.spec.ts reads the sources to make sure).
 */

/** Every permission some route or tool requires, `resource:action`. */
export const KNOWN_PERMISSIONS: readonly string[] = [
  'approve:*',
  'audit:read',
  'board:read',
  'board:write',
  'budgets:write',
  'messaging:read',
  'messaging:write',
  'metrics:read',
  'runs:read',
  'runs:write',
  'studio:read',
  'tools:call',
  'tools:read',
  'tools:write',
  'usage:read',
];

const RESOURCES = new Set(KNOWN_PERMISSIONS.map((permission) => permission.split(':')[0]));

/**
 * True for a grant that can match something: `*`, `resource:*` of a known resource, or a known
 * permission. Anything else (`tool:*`, `runs:raed`) is a typo that would silently grant nothing.
 */
export function isKnownGrant(permission: string): boolean {
  if (permission === '*' || KNOWN_PERMISSIONS.includes(permission)) return true;
  return permission.endsWith(':*') && RESOURCES.has(permission.slice(0, -2));
}

/** Built-in roles; a role of the same name in SVC_KEYS_FILE replaces one of these. */
export const BUILT_IN_ROLES: Readonly<Record<string, readonly string[]>> = {
  admin: ['*'],
  operator: [
    'runs:*',
    'tools:*',
    'approve:*',
    'studio:*',
    'board:*',
    'messaging:*',
    'metrics:read',
    'usage:read',
    'audit:read',
  ],
  runner: ['runs:*', 'tools:*', 'board:*', 'messaging:*'],
  viewer: ['studio:read', 'runs:read', 'board:read', 'messaging:read', 'usage:read'],
};

export const isBuiltInRole = (name: string): boolean => Object.hasOwn(BUILT_IN_ROLES, name);
