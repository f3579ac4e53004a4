/**
 * The renderer is `kubectl kustomize` (no Helm here: the manifests are a kustomize base and
 * overlays). Looked for as $KUBECTL, then `kubectl` on PATH. In CI, running as root, Debian's
 * `kubernetes-client` is installed with apt-get when neither is there. Outside CI a missing
 * renderer is reported as a reason to skip; CI never skips.
 */
import { spawnSync } from 'node:child_process';

function version(command) {
  const result = spawnSync(command, ['version', '--client', '-o', 'json'], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  if (result.status !== 0) return undefined;
  try {
    const parsed = JSON.parse(result.stdout);
    const kustomize = parsed.kustomizeVersion ?? 'built in';
    return `${parsed.clientVersion?.gitVersion ?? 'unknown'} (kustomize ${kustomize})`;
  } catch {
    return undefined;
  }
}

function aptInstall(log) {
  log('check-deploy: no kubectl; installing Debian kubernetes-client with apt-get');
  const options = {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  };
  if (spawnSync('apt-get', ['update', '-qq'], options).status !== 0) return false;
  return spawnSync('apt-get', ['install', '-y', '-qq', 'kubernetes-client'], options).status === 0;
}

/**
 * `{ command, version }`, or `{ missing }` with the reason. `log` gets progress lines (stderr).
 */
export function findRenderer({ env = process.env, ci = false, log = () => {} } = {}) {
  const command = env.KUBECTL || 'kubectl';
  let found = version(command);
  if (!found && !env.KUBECTL && ci && process.getuid?.() === 0 && aptInstall(log))
    found = version(command);
  if (found) return { command, version: found };
  const how = env.KUBECTL
    ? `KUBECTL=${env.KUBECTL} does not run`
    : "no kubectl on PATH (install kubectl, or Debian's kubernetes-client: apt-get install kubernetes-client)";
  return { missing: how };
}
