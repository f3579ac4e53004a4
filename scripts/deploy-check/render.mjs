/**
 * Renders every overlay of a kustomize tree. The tree is copied to a temporary directory with
 * each `*.example` file in place of the file it stands for (an overlay's secrets.env and
 * keys.json): renders are the same everywhere, and an operator's real secrets beside the
 * examples are never read.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { parseAllDocuments } from 'yaml';

const EXAMPLE = '.example';
const KUSTOMIZATION = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'];

/** A temporary copy of `tree` with the examples in place; `remove()` deletes it. */
export function materialize(tree) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-deploy-'));
  cpSync(tree, dir, { recursive: true, filter: (path) => !existsSync(`${path}${EXAMPLE}`) });
  const fill = (folder) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) fill(path);
      else if (entry.name.endsWith(EXAMPLE)) cpSync(path, path.slice(0, -EXAMPLE.length));
    }
  };
  fill(dir);
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The overlay directories (`overlays/<name>` with a kustomization), sorted by name. */
export function overlaysOf(dir) {
  const root = join(dir, 'overlays');
  if (!existsSync(root)) return [];
  return readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => join(root, entry.name))
    .filter((path) => KUSTOMIZATION.some((file) => existsSync(join(path, file))))
    .sort();
}

/** `{ objects }` or `{ error }`: `kubectl kustomize <overlay>` parsed into objects. */
export function renderOverlay(kubectl, overlay) {
  const result = spawnSync(kubectl, ['kustomize', overlay], {
    encoding: 'utf8',
    timeout: 60_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  if (result.status !== 0) {
    // Deprecation warnings (v5 on the v2-compatible fields) are not the failure.
    const reason = (result.stderr ?? '')
      .split('\n')
      .filter((line) => line.trim() && !line.startsWith('# Warning:'))
      .join(' ');
    return {
      error: `kubectl kustomize ${basename(overlay)} failed: ${reason || result.error?.message || `exit ${result.status}`}`,
    };
  }
  const objects = [];
  for (const document of parseAllDocuments(result.stdout)) {
    if (document.errors.length > 0)
      return { error: `unparseable output: ${document.errors[0].message}` };
    const object = document.toJS();
    if (object !== null) objects.push(object);
  }
  return { objects };
}
