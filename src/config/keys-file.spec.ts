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

  it('points at the entry that is wrong', () => {
    expect(problem({ keys: [{ id: 'a', key: 'long-enough-1' }] })).toMatch(
      /: keys\[0\]\.roles must be an array of role names$/,
    );
    expect(problem({ keys: [{ id: 'a', key_sha256: 'xyz', roles: [] }] })).toMatch(
      /: keys\[0\]\.key_sha256 must be 64 hex characters$/,
    );
    expect(problem({ keys: [{ id: 'a', roles: [] }] })).toMatch(
      /needs exactly one of key_sha256 or key/,
    );
    expect(
      problem({
        keys: [
          { id: 'a', key: 'long-enough-1', roles: [] },
          { id: 'a', key: 'long-enough-2', roles: [] },
        ],
      }),
    ).toMatch(/"a" is used twice/);
    expect(problem({ keys: [], roles: { x: 'runs:*' } })).toMatch(
      /: roles\.x must be an array of strings$/,
    );
  });
});
