import { describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { serveConfig } from '../src/cli/serve-config.js';
import { loadKeysFile } from '../src/platform/config/keys-file.js';
import { BACKENDS } from './support/backends.js';
import { collect, runSvc } from './support/cli.js';
import { freePort } from './support/net.js';
import { gatewayForSuite } from './support/suite.js';

// No Docker engine runs here: these checks keep docker-compose.yml, the Dockerfile and the load
// balancer config consistent with the gateway they deploy, and run their health checks against a
// real gateway. (The Kubernetes manifests: deploy-kubernetes.e2e-spec.ts.)
const pathOf = (path: string) => fileURLToPath(new URL(`../${path}`, import.meta.url));
const read = (path: string) => readFileSync(pathOf(path), 'utf8');

interface Service {
  command?: string[];
  environment?: Record<string, string>;
  healthcheck?: { test: string[]; start_period?: string };
  depends_on?: Record<string, { condition: string }> | string[];
  volumes?: string[];
  read_only?: boolean;
  tmpfs?: string[];
  cap_drop?: string[];
  stop_grace_period?: string;
}

// Compose reads YAML 1.1 merge keys (`<<: *gateway`).
const compose = parse(read('docker-compose.yml'), { merge: true }) as {
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
};
const GATEWAYS = ['gateway-1', 'gateway-2'];

/** `${NAME:-default}` → default, as compose interpolates an unset variable. */
const withDefaults = (value: string) => value.replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1');

/** `source:target[:mode]` of a service's volume that mounts at `target`. */
function mountAt(service: Service, target: string) {
  const entry = (service.volumes ?? []).map(withDefaults).find((v) => v.split(':')[1] === target);
  const [source, , mode] = entry?.split(':') ?? [];
  return { source, mode };
}

interface Instruction {
  keyword: string;
  args: string;
}

/** The Dockerfile's instructions (comments dropped, continuation lines joined). */
function dockerfile(): Instruction[] {
  const text = read('Dockerfile')
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join('\n')
    .replace(/\\\n/g, ' ');
  return text
    .split('\n')
    .map((line) => /^\s*([A-Za-z]+)\s+(.*)$/.exec(line))
    .filter((match) => match !== null)
    .map((match) => ({ keyword: match[1].toUpperCase(), args: match[2].trim() }));
}

/** The instructions of the final stage (what the image runs). */
function runStage(): Instruction[] {
  const all = dockerfile();
  const from = all.map((instruction) => instruction.keyword).lastIndexOf('FROM');
  return all.slice(from);
}

/** The image's HEALTHCHECK command (exec form). */
function imageHealthcheck(): string[] {
  const check = runStage().find((instruction) => instruction.keyword === 'HEALTHCHECK');
  const exec = /\bCMD\s+(\[.*\])$/.exec(check?.args ?? '');
  if (!exec) throw new Error('the Dockerfile has no HEALTHCHECK … CMD ["…"]');
  return JSON.parse(exec[1]) as string[];
}

/** Runs a `node -e …` health check with its address pointed at `origin`; its exit code. */
async function runHealthcheck(command: string[], origin: string): Promise<number | null> {
  expect(command[0]).toBe('node');
  const args = command.slice(1).map((arg) => arg.replace('http://127.0.0.1:8080', origin));
  const { code } = await collect(spawn(process.execPath, args, { stdio: 'pipe' }), 10_000);
  return code;
}

describe('deployment files', () => {
  it('runs PostgreSQL on a named volume, two gateway replicas on it and a load balancer', () => {
    expect(Object.keys(compose.services).sort()).toEqual([...GATEWAYS, 'lb', 'postgres'].sort());
    const postgres = compose.services.postgres;
    expect(postgres.healthcheck?.test.join(' ')).toContain('pg_isready');
    const pgdata = mountAt(postgres, '/var/lib/postgresql/data').source;
    expect(Object.keys(compose.volumes)).toContain(pgdata);
    for (const name of GATEWAYS) {
      const gateway = compose.services[name];
      expect(gateway.environment).toMatchObject({
        SVC_STATE_BACKEND: 'postgres',
        SVC_STATE_DSN: expect.stringMatching(/^postgres:\/\/.+@postgres:5432\//),
      });
      expect(gateway.environment?.SVC_API_KEY).toBeDefined();
      expect(gateway.healthcheck?.test.join(' ')).toContain('/readyz');
      expect(gateway.depends_on).toMatchObject({ postgres: { condition: 'service_healthy' } });
    }
  });

  it('gives each replica its own data volume, a read-only root and the keys file', () => {
    const dataVolumes = GATEWAYS.map((name) => mountAt(compose.services[name], '/app/data').source);
    expect(new Set(dataVolumes).size).toBe(GATEWAYS.length);
    for (const volume of dataVolumes) expect(Object.keys(compose.volumes)).toContain(volume);
    for (const name of GATEWAYS) {
      const gateway = compose.services[name];
      expect(gateway).toMatchObject({ read_only: true, tmpfs: ['/tmp'], cap_drop: ['ALL'] });
      const keysFile = gateway.environment?.SVC_KEYS_FILE ?? '';
      const keys = mountAt(gateway, keysFile);
      expect(keys.mode).toBe('ro');
      expect(existsSync(pathOf(keys.source))).toBe(true);
      // The sample is a valid keys file whose digests match no key anyone knows.
      expect(loadKeysFile(pathOf(keys.source)).keys.length).toBeGreaterThan(0);
      expect(read(keys.source)).not.toMatch(/"key"\s*:/);
    }
  });

  it('gives the replicas a configuration the gateway accepts, and time to drain', () => {
    const gateway = compose.services['gateway-1'];
    const command = gateway.command ?? [];
    const flag = (name: string) => command[command.indexOf(name) + 1];
    const env = {
      ...gateway.environment,
      SVC_API_KEY: 'a-compose-root-key',
      SVC_KEYS_FILE: pathOf(mountAt(gateway, gateway.environment?.SVC_KEYS_FILE ?? '').source),
    };
    const config = serveConfig({ host: flag('--host'), port: flag('--port') }, env);
    expect(config.state.backend).toBe('postgres');
    const graceSeconds = Number(/^(\d+)s$/.exec(gateway.stop_grace_period ?? '')?.[1]);
    expect(graceSeconds * 1000).toBeGreaterThan(config.server.shutdownTimeoutMs);
  });

  it('lets the load balancer route only to replicas whose /readyz answers 200', () => {
    const haproxy = read('deploy/haproxy.cfg');
    expect(haproxy).toContain('option httpchk GET /readyz');
    expect(haproxy).toContain('http-check expect status 200');
    expect(haproxy).toMatch(/server gateway-1 gateway-1:8080 check/);
    expect(haproxy).toMatch(/server gateway-2 gateway-2:8080 check/);
    // The replicas trust one proxy hop for the client address: the balancer must add it.
    expect(compose.services['gateway-1'].environment?.SVC_TRUST_PROXY).toBe('1');
    expect(haproxy).toMatch(/^\s*option forwardfor/m);
  });

  it('starts the replicas with options the CLI knows, on the port the balancer uses', async () => {
    const help = await runSvc(['serve', '--help']);
    const command = compose.services['gateway-1'].command ?? [];
    expect(command[0]).toBe('serve');
    for (const flag of command.filter((part) => part.startsWith('--')))
      expect(help.stdout).toContain(flag);
    expect(command.join(' ')).toContain('--port 8080');
    expect(read('Dockerfile')).toContain('CMD ["serve", "--host", "0.0.0.0", "--port", "8080"]');
  });

  it('builds in stages and runs as a numeric non-root user, with a health check and a data volume', () => {
    expect(dockerfile().filter((instruction) => instruction.keyword === 'FROM')).toHaveLength(2);
    const stage = runStage();
    const last = (keyword: string) =>
      stage.filter((instruction) => instruction.keyword === keyword).at(-1)?.args;
    expect(last('USER')).toMatch(/^[1-9]\d*(:[1-9]\d*)?$/);
    expect(last('EXPOSE')).toBe('8080');
    expect(last('VOLUME')).toBe('["/app/data"]');
    // The image runs the CLI the package names (the bundle of `npm run build`).
    const { bin } = JSON.parse(read('package.json')) as { bin: { svc: string } };
    expect(JSON.parse(last('ENTRYPOINT') ?? '[]')).toEqual(['node', bin.svc]);
    expect(last('HEALTHCHECK')).toMatch(/--interval=\S+ .*--retries=\d+/);
    expect(imageHealthcheck().join(' ')).toContain('http://127.0.0.1:8080/healthz');
    // No compilers in the image that runs.
    expect(stage.some((instruction) => /apt-get install/.test(instruction.args))).toBe(false);
  });
});

describe.each(BACKENDS)('the health checks against a real gateway (%s)', (backend) => {
  const gateway = gatewayForSuite(backend);
  // `CMD node -e …`: the command after compose's CMD marker.
  const composeCheck = () => compose.services['gateway-1'].healthcheck?.test.slice(1) ?? [];

  it("pass while the gateway serves: the image's (/healthz) and compose's (/readyz)", async () => {
    expect(await runHealthcheck(imageHealthcheck(), gateway.url)).toBe(0);
    expect(await runHealthcheck(composeCheck(), gateway.url)).toBe(0);
  });

  it('fail when nothing answers', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    expect(await runHealthcheck(imageHealthcheck(), closed)).toBe(1);
    expect(await runHealthcheck(composeCheck(), closed)).toBe(1);
  });
});
