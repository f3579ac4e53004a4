import { describe, expect, it } from '@jest/globals';
import { runSvc } from './support/cli.js';
import { freePort } from './support/net.js';
import { sha256Hex, writeKeysFile } from './support/keys-file.js';

const ROOT = 'keys-file-cli-root-key';

// A typo in SVC_KEYS_FILE must stop the start (exit 2, one line naming the key and the
// problem), never start a gateway whose key acts for every tenant or grants nothing. Each
// start costs seconds, so the other problems are left to src/config/keys-file.spec.ts.
describe('svc serve with a mistaken SVC_KEYS_FILE', () => {
  const cases: Array<[string, { keys: unknown[]; roles?: Record<string, string[]> }, string]> = [
    [
      '"tenant" for "tenant_id"',
      { keys: [{ id: 'ops-1', key: 'ops-key-12345', tenant: 'acme', roles: ['operator'] }] },
      'key "ops-1": has an unknown field "tenant" (did you mean "tenant_id"?)',
    ],
    [
      'an unknown role',
      { keys: [{ id: 'ops-1', key: 'ops-key-12345', tenant_id: 'acme', roles: ['operatr'] }] },
      'key "ops-1": roles names an unknown role "operatr"',
    ],
    [
      'the same key as plain key and as digest',
      {
        keys: [
          { id: 'a', key: 'same-key-12345', roles: ['viewer'] },
          { id: 'b', key_sha256: sha256Hex('same-key-12345'), roles: ['admin'] },
        ],
      },
      'key "b": the same key as key "a"',
    ],
  ];

  it.each(cases)('refuses %s', async (_name, content, problem) => {
    const path = writeKeysFile(content);
    // A free port, so that a gateway wrongly started would fail the test, not another one.
    const env = { SVC_API_KEY: ROOT, SVC_KEYS_FILE: path, SVC_PORT: String(await freePort()) };
    const result = await runSvc(['serve'], env);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    const lines = result.stderr.split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    const expected = `svc: invalid configuration: SVC_KEYS_FILE ${path}: ${problem}`;
    expect(lines[0].slice(0, expected.length)).toBe(expected);
    expect(result.stderr).not.toContain('-key-1');
    expect(result.stderr).not.toContain(ROOT);
  });
});
