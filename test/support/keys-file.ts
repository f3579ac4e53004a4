import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const sha256Hex = (key: string): string => createHash('sha256').update(key).digest('hex');

/** Writes an SVC_KEYS_FILE (see README "Authentication") to a fresh temp dir; returns its path. */
export function writeKeysFile(content: {
  keys: unknown[];
  roles?: Record<string, string[]>;
}): string {
  const file = join(mkdtempSync(join(tmpdir(), 'svc-keys-')), 'keys.json');
  writeFileSync(file, JSON.stringify(content));
  return file;
}
