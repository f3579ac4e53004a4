import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import request from 'supertest';
import { serveConfig } from '../src/cli/serve-config.js';
import { SECRET_VARIABLES } from '../src/platform/config/environment.js';
import { loadKeysFile } from '../src/platform/config/keys-file.js';
import { type BackendFixture, createBackend } from './support/backends.js';
import { collect } from './support/cli.js';
import { type RunningGateway, startGateway, tempBoardDb } from './support/gateway.js';
import { INITIALIZE, mcpHeaders } from './support/mcp-client.js';
import { ROOT_KEY, bearer } from './support/mcp-fixtures.js';

// The Kubernetes manifests, rendered and validated by the project's own check
// (scripts/check-deploy.mjs: kubectl kustomize, the Kubernetes schemas, the gateway's needs), then
// held against the app itself: the configuration they give it is one it accepts, and a gateway
// started from a rendered pod's environment answers the probes the Deployment declares.
const SCRIPT = fileURLToPath(new URL('../scripts/check-deploy.mjs', import.meta.url));
const TREE = fileURLToPath(new URL('../deploy/kubernetes', import.meta.url));
const README = fileURLToPath(new URL('../README.md', import.meta.url));
const IN_CI = process.env.CI === 'true' || process.env.CI === '1';
const HAVE_KUBECTL =
  spawnSync(process.env.KUBECTL || 'kubectl', ['version', '--client', '-o', 'json'], {
    timeout: 30_000,
  }).status === 0;
if (!HAVE_KUBECTL && !IN_CI) {
  console.warn(
    'deploy-kubernetes: skipped, no kubectl (CI installs Debian kubernetes-client: .ci/run)',
  );
}
/** In CI the script may first install kubectl with apt-get. */
const CHECK_TIMEOUT_MS = 300_000;

interface EnvEntry {
  value: string;
  from: string;
}
interface GatewaySummary {
  backend: 'sqlite' | 'postgres';
  replicas: { min: number; max: number; hpa: boolean; pdb: boolean };
  args: string[];
  probes: { startup?: string; liveness?: string; readiness?: string };
  service?: { name: string; namespace?: string };
  env: Record<string, EnvEntry>;
}
interface OverlayResult {
  overlay: string;
  objects: string[];
  problems: string[];
  gateway?: GatewaySummary;
}
interface CheckResult {
  renderer?: string;
  overlays?: OverlayResult[];
  problems?: string[];
  skipped?: boolean;
  error?: string;
}

async function runCheck(args: string[], env: Record<string, string | undefined> = process.env) {
  const child = spawn(process.execPath, [SCRIPT, '--json', ...args], { env, stdio: 'pipe' });
  const { code, stdout, stderr } = await collect(child, CHECK_TIMEOUT_MS);
  return { code, stderr, result: JSON.parse(stdout) as CheckResult };
}

function overlay(result: CheckResult, name: string): OverlayResult {
  const found = result.overlays?.find((entry) => entry.overlay === `overlays/${name}`);
  if (!found) throw new Error(`no overlays/${name} in ${JSON.stringify(result.overlays)}`);
  return found;
}

function gatewayOf(result: CheckResult, name: string): GatewaySummary {
  const gateway = overlay(result, name).gateway;
  if (!gateway) throw new Error(`overlays/${name} has no gateway summary`);
  return gateway;
}

const kindsOf = (objects: string[]) => objects.map((object) => object.split('/')[0]).sort();
const values = (env: Record<string, EnvEntry>) =>
  Object.fromEntries(Object.entries(env).map(([name, entry]) => [name, entry.value]));
/** The keys file an overlay's Secret carries when rendered from its example. */
const exampleKeys = (name: string) => join(TREE, 'overlays', name, 'keys.json.example');

/** The variables README's configuration table documents. */
function documentedVariables(): Set<string> {
  const names = [...readFileSync(README, 'utf8').matchAll(/^\| `([A-Z_]+)`/gm)].map((m) => m[1]);
  return new Set(names);
}

(HAVE_KUBECTL || IN_CI ? describe : describe.skip)('Kubernetes manifests', () => {
  let check: Awaited<ReturnType<typeof runCheck>>;
  beforeAll(async () => {
    check = await runCheck([]);
  }, CHECK_TIMEOUT_MS);

  it('render every overlay and pass the Kubernetes schemas and the gateway checks', () => {
    expect(check.result.error).toBeUndefined();
    expect(check.result.problems).toEqual([]);
    expect(check.result.overlays?.map((entry) => [entry.overlay, entry.problems])).toEqual([
      ['overlays/production', []],
      ['overlays/sqlite-single', []],
    ]);
    expect(check.code).toBe(0);
    expect(check.stderr).toContain('check-deploy: rendered with kubectl');
  });

  it('run several replicas on PostgreSQL with a PDB and an HPA, or one on sqlite and a claim', () => {
    const production = overlay(check.result, 'production');
    expect(kindsOf(production.objects)).toEqual([
      'ConfigMap',
      'Deployment',
      'HorizontalPodAutoscaler',
      'PodDisruptionBudget',
      'Secret',
      'Secret',
      'Service',
      'ServiceAccount',
    ]);
    expect(gatewayOf(check.result, 'production')).toMatchObject({
      backend: 'postgres',
      replicas: { min: 3, max: 6, hpa: true, pdb: true },
      probes: { startup: '/healthz', liveness: '/healthz', readiness: '/readyz' },
    });
    const single = overlay(check.result, 'sqlite-single');
    expect(kindsOf(single.objects)).toEqual([
      'ConfigMap',
      'Deployment',
      'PersistentVolumeClaim',
      'Secret',
      'Secret',
      'Service',
      'ServiceAccount',
    ]);
    expect(gatewayOf(check.result, 'sqlite-single')).toMatchObject({
      backend: 'sqlite',
      replicas: { min: 1, max: 1, hpa: false, pdb: false },
    });
  });

  it('give the gateway a configuration it accepts, with a keys file it accepts', () => {
    for (const name of ['production', 'sqlite-single']) {
      const gateway = gatewayOf(check.result, name);
      const keys = loadKeysFile(exampleKeys(name));
      expect(keys.keys.length).toBeGreaterThan(0);
      const host = gateway.args[gateway.args.indexOf('--host') + 1];
      const port = gateway.args[gateway.args.indexOf('--port') + 1];
      const config = serveConfig(
        { host, port },
        { ...values(gateway.env), SVC_KEYS_FILE: exampleKeys(name) },
      );
      expect({ host: config.server.host, port: config.server.port }).toEqual({
        host: '0.0.0.0',
        port: 8080,
      });
      expect(config.state.backend).toBe(gateway.backend);
    }
  });

  it('set only documented variables, and every secret from a Secret', () => {
    const documented = documentedVariables();
    for (const name of ['production', 'sqlite-single']) {
      const { env } = gatewayOf(check.result, name);
      const undocumented = Object.keys(env).filter(
        (variable) => /^(SVC|OTEL)_/.test(variable) && !documented.has(variable),
      );
      expect(undocumented).toEqual([]);
      const exposed = Object.entries(env)
        .filter(
          ([variable, entry]) => SECRET_VARIABLES.has(variable) && !/^Secret\//.test(entry.from),
        )
        .map(([variable, entry]) => `${variable} from ${entry.from}`);
      expect(exposed).toEqual([]);
    }
  });

  // The overlay decides the backend: production runs on PostgreSQL, sqlite-single on sqlite.
  describe.each([
    ['production', 'postgres'],
    ['sqlite-single', 'sqlite'],
  ] as const)('a gateway started from overlays/%s (%s)', (name, backend) => {
    let fixture: BackendFixture | undefined;
    let running: RunningGateway | undefined;
    beforeAll(async () => {
      fixture = await createBackend(backend);
      const { env } = gatewayOf(check.result, name);
      // The pod's environment, with the cluster's paths and credentials swapped for the test's.
      running = await startGateway({
        ...values(env),
        ...fixture.env,
        SVC_API_KEY: ROOT_KEY,
        SVC_KEYS_FILE: exampleKeys(name),
        SVC_BOARD_DB: tempBoardDb(),
        SVC_LOG_LEVEL: 'silent',
      });
    });
    afterAll(async () => {
      await running?.close();
      await fixture?.cleanup();
    });
    const url = () => {
      if (!running) throw new Error('the gateway did not start');
      return running.url;
    };

    it('answers the probes the Deployment declares with 200, readiness on its backend', async () => {
      const { probes } = gatewayOf(check.result, name);
      for (const path of [probes.startup, probes.liveness, probes.readiness])
        await request(url())
          .get(path ?? '/missing')
          .expect(200);
      const ready = await request(url()).get(probes.readiness ?? '/missing');
      expect(ready.body).toMatchObject({ status: 'ready', backend });
    });

    it('lets MCP clients in the cluster use the Service name, and no other host', async () => {
      const { service } = gatewayOf(check.result, name);
      const post = (host: string) =>
        request(url())
          .post('/mcp/')
          .set({ ...mcpHeaders({ 'X-Tenant-Id': 'acme' }), ...bearer(ROOT_KEY), Host: host })
          .send(JSON.stringify(INITIALIZE));
      const names = [
        `${service?.name}`,
        `${service?.name}.${service?.namespace}.svc`,
        `${service?.name}.${service?.namespace}.svc.cluster.local:8080`,
      ];
      for (const host of names) expect((await post(host)).status).toBe(200);
      expect((await post('evil.example')).status).toBe(403);
    });
  });
});

(HAVE_KUBECTL || IN_CI ? describe : describe.skip)('the deployment check', () => {
  let dir = '';
  let broken: Awaited<ReturnType<typeof runCheck>>;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-deploy-broken-'));
    cpSync(TREE, dir, { recursive: true });
    const edit = (path: string, from: string, to: string) => {
      const file = join(dir, path);
      const text = readFileSync(file, 'utf8');
      if (!text.includes(from)) throw new Error(`${path} has no ${from}`);
      writeFileSync(file, text.replace(from, to));
    };
    edit('base/deployment.yaml', 'readinessProbe:', 'readinesProbe:');
    edit(
      'overlays/production/config.env',
      'SVC_STATE_BACKEND=postgres',
      'SVC_STATE_BACKEND=sqlite',
    );
    edit(
      'overlays/production/kustomization.yaml',
      '  - hpa.yaml\n',
      '  - hpa.yaml\n  - widget.yaml\n',
    );
    writeFileSync(
      join(dir, 'overlays/production/widget.yaml'),
      'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: gadget\n',
    );
    // An operator's own secrets beside the example: the check renders the example instead.
    writeFileSync(
      join(dir, 'overlays/production/secrets.env'),
      'SVC_API_KEY=an-operators-real-key\n',
    );
    broken = await runCheck(['--dir', dir]);
  }, CHECK_TIMEOUT_MS);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('fails on a misspelt field, an unknown kind and replicas without PostgreSQL', () => {
    expect(broken.code).toBe(1);
    const problems = overlay(broken.result, 'production').problems;
    expect(problems).toEqual(
      expect.arrayContaining([
        'Deployment/svc-gateway: unknown field spec.template.spec.containers[0].readinesProbe',
        'Deployment/svc-gateway: readinessProbe must be an httpGet of /readyz',
        'Widget/gadget: no schema for example.com/v1 Widget',
        'Deployment/svc-gateway: 6 replicas need SVC_STATE_BACKEND=postgres (sqlite is one replica)',
      ]),
    );
    expect(broken.stderr).toContain('FAIL overlays/production');
  });

  it('never reads the secrets an operator keeps beside the examples', () => {
    const { env } = gatewayOf(broken.result, 'production');
    expect(env.SVC_API_KEY).toMatchObject({ value: '' });
    expect(JSON.stringify(broken.result)).not.toContain('an-operators-real-key');
  });
});

describe('the deployment check without kubectl', () => {
  it('fails in CI without a renderer, and skips with the reason elsewhere', async () => {
    const env = { PATH: process.env.PATH, KUBECTL: '/nonexistent/kubectl' };
    const ci = await runCheck([], { ...env, CI: 'true' });
    expect(ci.code).toBe(1);
    expect(ci.stderr).toContain('check-deploy: cannot run in CI: KUBECTL=/nonexistent/kubectl');
    const local = await runCheck([], env);
    expect(local.code).toBe(0);
    expect(local.result).toMatchObject({ skipped: true });
    expect(local.stderr).toContain('check-deploy: skipped:');
  });
});
