import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from './config-error.js';
import { loadKeysFile } from './keys-file.js';

function file(content: unknown): string {
  const path = join(mkdtempSync(join(tmpdir(), 'keys-')), 'keys.json');
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

function problem(content: unknown): string {
  try {
    loadKeysFile(file(content));
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('loadKeysFile', () => {
  it('reads keys by digest or plain key, with tenants and roles', () => {
    const digest = createHash('sha256').update('first-key-123').digest('hex');
    const config = loadKeysFile(
      file({
        keys: [
          { id: 'ops-1', key_sha256: digest, tenant_id: 'acme', roles: ['operator'] },
          { id: 'ci', key: 'second-key-456', roles: ['runner'] },
        ],
        roles: { operator: ['runs:*'] },
      }),
    );
    expect(config.keys).toHaveLength(2);
    expect(config.keys[0]).toMatchObject({ id: 'ops-1', tenantId: 'acme', roles: ['operator'] });
    expect(config.keys[0].sha256.toString('hex')).toBe(digest);
    expect(config.keys[1].sha256).toEqual(createHash('sha256').update('second-key-456').digest());
    expect(config.keys[1].tenantId).toBeUndefined();
    expect(config.roles).toEqual({ operator: ['runs:*'] });
  });

  it('refuses a file that cannot be read or parsed', () => {
    expect(() => loadKeysFile('/nonexistent/keys.json')).toThrow(
      'SVC_KEYS_FILE /nonexistent/keys.json cannot be read',
    );
    expect(problem('{not json')).toMatch(/is not valid JSON$/);
  });

  it('points at the entry that is wrong, by id (or index when the id is missing)', () => {
    expect(problem({ keys: [{ id: 'a', key: 'long-enough-1' }] })).toMatch(
      /: key "a": roles must be an array of role names$/,
    );
    expect(problem({ keys: [{ id: 'a', key_sha256: 'xyz', roles: [] }] })).toMatch(
      /: key "a": key_sha256 must be 64 hex characters$/,
    );
    expect(problem({ keys: [{ id: 'a', roles: [] }] })).toMatch(
      /: key "a": needs exactly one of key_sha256 or key$/,
    );
    expect(problem({ keys: [{ key: 'long-enough-1', roles: [] }] })).toMatch(
      /: keys\[0\]: id must be a string of 1 to 128 characters$/,
    );
    expect(
      problem({
        keys: [
          { id: 'a', key: 'long-enough-1', roles: [] },
          { id: 'a', key: 'long-enough-2', roles: [] },
        ],
      }),
    ).toMatch(/: key "a": the id is used twice \(also keys\[0\]\)$/);
    expect(problem({ keys: [], roles: { x: 'runs:*' } })).toMatch(
      /: roles\.x must be an array of strings$/,
    );
  });

  it('refuses unknown fields at every level, suggesting the field meant', () => {
    const key = { id: 'ops-1', key: 'long-enough-1', roles: ['operator'] };
    // The review's case: "tenant" for "tenant_id" made the key act for every tenant.
    expect(problem({ keys: [{ ...key, tenant: 'acme' }] })).toMatch(
      /: key "ops-1": has an unknown field "tenant" \(did you mean "tenant_id"\?\)$/,
    );
    expect(problem({ keys: [{ ...key, role: ['admin'] }] })).toMatch(
      /: key "ops-1": has an unknown field "role" \(did you mean "roles"\?\)$/,
    );
    expect(problem({ keys: [{ ...key, comment: 'x' }] })).toMatch(
      /has an unknown field "comment" \(allowed: id, key, key_sha256, tenant_id, roles\)$/,
    );
    expect(problem({ keys: [key], role: {} })).toMatch(
      /: the file has an unknown field "role" \(did you mean "roles"\?\)$/,
    );
    expect(problem([key])).toMatch(/must be a JSON object with "keys"/);
    expect(problem({ keys: [key, 'not-an-entry'] })).toMatch(/: keys\[1\] must be an object$/);
  });

  it('refuses unknown roles and permissions', () => {
    const key = (roles: string[]) => ({ id: 'ops-1', key: 'long-enough-1', roles });
    expect(problem({ keys: [key(['operatr'])] })).toMatch(
      /: key "ops-1": roles names an unknown role "operatr" \(built-in: admin, operator, runner, viewer\)$/,
    );
    expect(problem({ keys: [key(['auditr'])], roles: { auditor: ['audit:read'] } })).toMatch(
      /unknown role "auditr" \(built-in: admin, operator, runner, viewer; defined in the file: auditor\)$/,
    );
    // Not an own property of the built-in table, whatever Object.prototype holds.
    expect(problem({ keys: [key(['constructor'])] })).toMatch(/unknown role "constructor"/);
    for (const permission of ['tool:*', 'runs:raed', 'runs', '**', 'approve']) {
      expect(problem({ keys: [key(['x'])], roles: { x: [permission] } })).toContain(
        `: roles.x grants an unknown permission ${JSON.stringify(permission)}`,
      );
    }
    const config = loadKeysFile(
      file({
        keys: [key(['x', 'viewer'])],
        roles: { x: ['*', 'runs:*', 'approve:*', 'audit:read', 'tools:call'] },
      }),
    );
    expect(config.keys[0].roles).toEqual(['x', 'viewer']);
  });

  it('refuses the same key twice, also across key and key_sha256, and SVC_API_KEY again', () => {
    const digest = createHash('sha256').update('shared-key-123').digest('hex');
    expect(
      problem({
        keys: [
          { id: 'a', key: 'shared-key-123', roles: ['viewer'] },
          { id: 'b', key_sha256: digest.toUpperCase(), roles: ['admin'] },
        ],
      }),
    ).toMatch(/: key "b": the same key as key "a"$/);
    const path = file({ keys: [{ id: 'a', key: 'the-root-key-1', roles: ['viewer'] }] });
    expect(() => loadKeysFile(path, { rootKey: 'the-root-key-1' })).toThrow(
      `SVC_KEYS_FILE ${path}: key "a": the same key as SVC_API_KEY`,
    );
    expect(loadKeysFile(path, { rootKey: 'another-root-key' }).keys).toHaveLength(1);
  });

  it('never quotes a key in its messages', () => {
    const message = problem({
      keys: [
        { id: 'a', key: 'secret-value-1', roles: ['viewer'] },
        { id: 'b', key: 'secret-value-1', roles: ['viewer'] },
      ],
    });
    expect(message).not.toContain('secret-value-1');
  });

  it('refuses control characters in ids and tenants', () => {
    expect(
      problem({ keys: [{ id: 'a', key: 'long-enough-1', tenant_id: 'ac\u0000me', roles: [] }] }),
    ).toMatch(/: key "a": tenant_id must not contain control characters$/);
    expect(problem({ keys: [{ id: 'a\nb', key: 'long-enough-1', roles: [] }] })).toMatch(
      /: keys\[0\]: id must not contain control characters$/,
    );
  });
});
