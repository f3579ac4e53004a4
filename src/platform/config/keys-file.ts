import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { ConfigError } from './config-error.js';
import { isBuiltInRole, isKnownGrant } from './roles.js';

/** One API key from SVC_KEYS_FILE, reduced to what the auth guard needs. */
export interface ConfiguredKey {
  id: string;
  /** SHA-256 digest of the key; the plain key is never kept. */
  sha256: Buffer;
  /** The only tenant this key may act for; undefined means every tenant. */
  tenantId?: string;
  roles: string[];
}

export interface KeysFileConfig {
  keys: ConfiguredKey[];
  /** Role name → permission strings; replaces a built-in role of the same name. */
  roles: Record<string, string[]>;
}

const FILE_FIELDS = ['keys', 'roles'];
const KEY_FIELDS = ['id', 'key', 'key_sha256', 'tenant_id', 'roles'];
const MAX_NAME = 128;
const SHA256_HEX = /^[0-9a-fA-F]{64}$/;
// eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
const CONTROL = /[\u0000-\u001f\u007f]/;

type Json = Record<string, unknown>;

/** A problem in the file, before it is prefixed with the file's path. */
class Problem extends Error {}

const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** Levenshtein distance, for "did you mean" on misspelt field names (tiny inputs only). */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1);
      row.push(Math.min(previous[j] + 1, row[j - 1] + 1, substitution));
    }
    previous = row;
  }
  return previous[b.length];
}

function unknownField(object: Json, allowed: readonly string[]): string | undefined {
  const unknown = Object.keys(object).find((field) => !allowed.includes(field));
  if (unknown === undefined) return undefined;
  const near = allowed
    .map((field) => ({ field, d: field.startsWith(`${unknown}_`) ? 1 : distance(unknown, field) }))
    .filter(({ d }) => d <= 2)
    .sort((a, b) => a.d - b.d)[0]?.field;
  const hint = near ? ` (did you mean "${near}"?)` : ` (allowed: ${allowed.join(', ')})`;
  return `has an unknown field ${JSON.stringify(unknown)}${hint}`;
}

/** A problem with a name-like string (id, tenant, role), or undefined when it is fine. */
function nameProblem(value: unknown, what: string): string | undefined {
  if (typeof value !== 'string' || value.length < 1 || value.length > MAX_NAME) {
    return `${what} must be a string of 1 to ${MAX_NAME} characters`;
  }
  if (CONTROL.test(value)) return `${what} must not contain control characters`;
  return undefined;
}

/**
 * Checks and reads the file's `roles`: every name a plain name, every permission one the
 * gateway knows (KNOWN_PERMISSIONS, `resource:*` or `*`).
 */
function readRoles(raw: unknown): Map<string, string[]> {
  const roles = new Map<string, string[]>();
  if (raw === undefined) return roles;
  if (!isObject(raw)) throw new Problem('roles must be an object of role name to permissions');
  for (const [name, permissions] of Object.entries(raw)) {
    const problem = nameProblem(name, 'a role name');
    if (problem) throw new Problem(`roles: ${problem}`);
    if (!Array.isArray(permissions) || !permissions.every((p) => typeof p === 'string')) {
      throw new Problem(`roles.${name} must be an array of strings`);
    }
    const unknown = permissions.find((permission) => !isKnownGrant(permission));
    if (unknown !== undefined) {
      throw new Problem(`roles.${name} grants an unknown permission ${JSON.stringify(unknown)}`);
    }
    roles.set(name, permissions);
  }
  return roles;
}

interface KeyChecks {
  roles: ReadonlyMap<string, string[]>;
  /** SHA-256 of SVC_API_KEY when set: a file key equal to it would be two principals. */
  rootDigest?: string;
}

/** One entry of `keys`, checked; a Problem says what is wrong (the caller names the key). */
function readKey(entry: Json, checks: KeyChecks): ConfiguredKey {
  const unknown = unknownField(entry, KEY_FIELDS);
  if (unknown) throw new Problem(unknown);
  const idProblem = nameProblem(entry.id, 'id');
  if (idProblem) throw new Problem(idProblem);
  const { key, key_sha256: keySha256, tenant_id: tenantId, roles } = entry;
  if ((key === undefined) === (keySha256 === undefined)) {
    throw new Problem('needs exactly one of key_sha256 or key');
  }
  if (key !== undefined && (typeof key !== 'string' || key.length < 8)) {
    throw new Problem('key must be a string of at least 8 characters');
  }
  if (keySha256 !== undefined && (typeof keySha256 !== 'string' || !SHA256_HEX.test(keySha256))) {
    throw new Problem('key_sha256 must be 64 hex characters');
  }
  if (tenantId !== undefined) {
    const problem = nameProblem(tenantId, 'tenant_id');
    if (problem) throw new Problem(problem);
  }
  if (!Array.isArray(roles) || !roles.every((role) => typeof role === 'string')) {
    throw new Problem('roles must be an array of role names');
  }
  const unknownRole = roles.find((role) => !checks.roles.has(role) && !isBuiltInRole(role));
  if (unknownRole !== undefined) {
    const defined = [...checks.roles.keys()];
    throw new Problem(
      `roles names an unknown role ${JSON.stringify(unknownRole)} (built-in: admin, operator, ` +
        `runner, viewer${defined.length > 0 ? `; defined in the file: ${defined.join(', ')}` : ''})`,
    );
  }
  const sha256 =
    typeof keySha256 === 'string'
      ? Buffer.from(keySha256, 'hex')
      : createHash('sha256')
          .update(key as string, 'utf8')
          .digest();
  return {
    id: entry.id as string,
    sha256,
    tenantId: tenantId as string | undefined,
    roles,
  };
}

/** `key "ops-1"`, or `keys[3]` when the entry has no usable id. */
function label(entry: unknown, index: number): string {
  return isObject(entry) &&
    typeof entry.id === 'string' &&
    nameProblem(entry.id, 'id') === undefined
    ? `key ${JSON.stringify(entry.id)}`
    : `keys[${index}]`;
}

function readKeys(raw: Json, checks: KeyChecks): ConfiguredKey[] {
  if (!Array.isArray(raw.keys)) throw new Problem('keys must be an array');
  const byId = new Map<string, string>();
  const byDigest = new Map<string, string>();
  return raw.keys.map((entry: unknown, index) => {
    const where = label(entry, index);
    if (!isObject(entry)) throw new Problem(`${where} must be an object`);
    let key: ConfiguredKey;
    try {
      key = readKey(entry, checks);
    } catch (problem) {
      if (!(problem instanceof Problem)) throw problem;
      throw new Problem(`${where}: ${problem.message}`);
    }
    const digest = key.sha256.toString('hex');
    if (byId.has(key.id))
      throw new Problem(`${where}: the id is used twice (also ${byId.get(key.id)})`);
    if (byDigest.has(digest))
      throw new Problem(`${where}: the same key as ${byDigest.get(digest)}`);
    if (digest === checks.rootDigest) throw new Problem(`${where}: the same key as SVC_API_KEY`);
    byId.set(key.id, `keys[${index}]`);
    byDigest.set(digest, `key ${JSON.stringify(key.id)}`);
    return key;
  });
}

/**
 * Reads and validates the JSON keys file named by SVC_KEYS_FILE, strictly: a typo must stop the
 * start rather than quietly widen a key (a misspelt `tenant_id` would bind it to every tenant).
 * Refused: unknown fields at any level, unknown role names and permissions, duplicate ids, the
 * same key twice (also across `key` and `key_sha256`) and a key equal to SVC_API_KEY. Throws a
 * ConfigError naming the key (its id, else its index) and the problem; never the key itself.
 */
export function loadKeysFile(path: string, options: { rootKey?: string } = {}): KeysFileConfig {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    const reason = error instanceof SyntaxError ? 'is not valid JSON' : 'cannot be read';
    throw new ConfigError(`SVC_KEYS_FILE ${path} ${reason}`);
  }
  try {
    if (!isObject(raw))
      throw new Problem('must be a JSON object with "keys" (and optionally "roles")');
    const unknown = unknownField(raw, FILE_FIELDS);
    if (unknown) throw new Problem(`the file ${unknown}`);
    const roles = readRoles(raw.roles);
    const rootDigest =
      options.rootKey === undefined
        ? undefined
        : createHash('sha256').update(options.rootKey, 'utf8').digest('hex');
    const keys = readKeys(raw, { roles, rootDigest });
    return { keys, roles: Object.fromEntries(roles) };
  } catch (problem) {
    if (!(problem instanceof Problem)) throw problem;
    throw new ConfigError(`SVC_KEYS_FILE ${path}: ${problem.message}`);
  }
}
