import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const CACHE = join(process.cwd(), 'node_modules', '.cache', 'node22');

/**
 * A Node.js 22 binary for tools that need it (the MCP conformance suite uses `fs.globSync`),
 * while the gateway itself runs on Node 20: this one when it is 22 or later, else Node's own
 * build from the npm registry (`node-<platform>-<arch>`), installed once into node_modules/.cache.
 */
export function node22(): string {
  if (Number(process.versions.node.split('.')[0]) >= 22) return process.execPath;
  const pkg = `node-${process.platform}-${process.arch}`;
  const binary = join(CACHE, 'node_modules', pkg, 'bin', 'node');
  if (!existsSync(binary)) {
    execFileSync(
      'npm',
      ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', CACHE, `${pkg}@22`],
      {
        stdio: 'ignore',
      },
    );
  }
  return binary;
}
