import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from '@jest/globals';

/** Packages whose `engines` leave out Node 20 although they run on it (README, Notes on dependencies). */
const KNOWN_ON_NODE_20 = ['content-type', 'file-type', 'nestjs-pino', 'openai'];

describe('npm ci on the supported Node versions', () => {
  it('warns about no package engines but the ones the README explains', async () => {
    const { stderr } = await promisify(execFile)(
      'npm',
      ['ci', '--dry-run', '--no-audit', '--no-fund'],
      {
        timeout: 60_000,
      },
    );
    const warned = [
      ...new Set(
        [...stderr.matchAll(/EBADENGINE\s+package: '(@?[^@']+)@/g)].map(([, name]) => name),
      ),
    ].sort();
    const major = Number(process.versions.node.split('.')[0]);
    expect(warned).toEqual(major >= 22 ? [] : KNOWN_ON_NODE_20);
    const readme = readFileSync('README.md', 'utf8');
    for (const name of KNOWN_ON_NODE_20) expect(readme).toContain(`\`${name}@`);
  }, 90_000);
});
