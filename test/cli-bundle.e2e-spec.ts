import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { type BackendFixture, createBackend } from './support/backends.js';
import { SVC_BIN, SVC_UNBUNDLED_BIN, collect, spawnSvc, waitReady } from './support/cli.js';
import { freePort } from './support/net.js';

const KEY = 'bundle-test-key-1';

/** What a start of `bin` showed: its API description, and what Nest logged of modules and routes. */
interface Start {
  document: unknown;
  wiring: string[];
}

/**
 * Starts `svc serve` from `bin` on a fresh sqlite backend, reads its /openapi.json, stops it,
 * and keeps the start's log lines that name classes: every module Nest initialized, every
 * controller and route it mapped.
 */
async function startOf(bin: string, fixture: BackendFixture): Promise<Start> {
  const port = await freePort();
  const child = spawnSvc(
    ['serve', '--port', String(port)],
    { ...fixture.env, SVC_API_KEY: KEY },
    undefined,
    bin,
  );
  const done = collect(child, 30_000);
  const url = `http://127.0.0.1:${port}`;
  let document: unknown;
  try {
    await waitReady(url);
    document = (await request(url).get('/openapi.json').expect(200)).body;
  } finally {
    child.kill('SIGTERM');
  }
  const { code, stdout } = await done;
  expect(code).toBe(0);
  const wiring = stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { context?: string; msg?: string })
    .filter(({ context }) =>
      ['InstanceLoader', 'RoutesResolver', 'RouterExplorer'].includes(context ?? ''),
    )
    .map(({ context, msg }) => `${context}: ${msg}`);
  return { document, wiring };
}

// `svc` runs the bundle of `npm run build` (scripts/bundle.mjs); every other CLI test runs it
// too. This one holds it to the modules tsc built: class names are read at run time (the API
// description's schemas and operation ids, the modules and controllers Nest names), and a
// bundler renames classes two modules both declare.
describe('the bundled CLI', () => {
  let fixtures: BackendFixture[];
  beforeAll(async () => {
    fixtures = await Promise.all([createBackend('sqlite'), createBackend('sqlite')]);
  });
  afterAll(async () => Promise.all(fixtures.map((fixture) => fixture.cleanup())));

  it('serves the API description and wiring of the unbundled build, every class by its own name', async () => {
    const bundled = await startOf(SVC_BIN, fixtures[0]);
    const unbundled = await startOf(SVC_UNBUNDLED_BIN, fixtures[1]);
    expect(bundled.wiring.length).toBeGreaterThan(50);
    expect(bundled.wiring).toContain('InstanceLoader: StateModule dependencies initialized');
    expect(bundled.wiring).toEqual(unbundled.wiring);
    expect(bundled.document).toEqual(unbundled.document);
  });
});
