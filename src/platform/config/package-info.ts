import { readFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface PackageInfo {
  name: string;
  version: string;
}

/** package.json of the gateway, found by walking up from this file (works from src/ and dist/). */
function readPackageInfo(): PackageInfo & { root: string } {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate)) {
      const pkg = JSON.parse(readFileSync(candidate, 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === 'svc-gateway' && pkg.version)
        return { name: pkg.name, version: pkg.version, root: dir };
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error('package.json of svc-gateway not found');
    dir = parent;
  }
}

const found = readPackageInfo();

export const PACKAGE: PackageInfo = { name: found.name, version: found.version };

/** The gateway's own directory (where package.json is), for files shipped beside the code. */
export const PACKAGE_ROOT: string = found.root;
