import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AddressInfo, connect, createServer } from 'node:net';
import request from 'supertest';
import { stateMigrations } from '../migrations/index.js';
import { freePort } from './support/net.js';
import { BACKENDS, type BackendFixture, createBackend } from './support/backends.js';
import { collect, runSvc, spawnSvc, waitReady } from './support/cli.js';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

describe('svc command line', () => {
  it('prints its version', async () => {
    const result = await runSvc(['--version']);
    expect(result).toMatchObject({ code: 0, stdout: `${pkg.version}\n` });
  });

  it('prints usage with --help', async () => {
    const result = await runSvc(['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: svc [options] [command]');
    expect(result.stdout).toMatch(/serve \[options\]/);
    expect(result.stdout).toMatch(/migrate/);
  });

  it('prints usage and exits non-zero for an unknown command or option', async () => {
    const command = await runSvc(['frobnicate']);
    expect(command.code).not.toBe(0);
    expect(command.stderr).toContain("unknown command 'frobnicate'");
    expect(command.stderr).toContain('Usage: svc');

    const option = await runSvc(['serve', '--bogus']);
    expect(option.code).not.toBe(0);
    expect(option.stderr).toContain("unknown option '--bogus'");
    expect(option.stderr).toContain('Usage: svc serve [options]');
  });

  it.each([
    [
      { SVC_STATE_BACKEND: 'mysql' },
      'SVC_STATE_BACKEND must be one of sqlite, postgres (got "mysql")',
    ],
    [{ SVC_PORT: 'abc' }, 'SVC_PORT must be an integer between 1 and 65535 (got "abc")'],
    [
      { SVC_STATE_BACKEND: 'postgres', SVC_STATE_DSN: 'not-a-dsn' },
      'SVC_STATE_DSN must be a postgres://',
    ],
    [
      { SVC_BOARD_DB: 'postgresql://kanban:hunter2@/board' },
      'SVC_BOARD_DB must be a file path or a postgres:// or postgresql:// connection URL with a host',
    ],
  ])('stops with exit 2 and one line for a bad configuration value %j', async (env, message) => {
    const result = await runSvc(['serve'], env);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    const lines = result.stderr.split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`svc: invalid configuration: ${message}`);
    expect(result.stderr).not.toContain('hunter2');
  });

  it('names the flag when a flag value is bad', async () => {
    const result = await runSvc(['serve', '--port', 'abc']);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(
      'svc: invalid configuration: --port must be an integer between 1 and 65535 (got "abc")',
    );
  });

  it('refuses a non-loopback host without a key, unless --insecure', async () => {
    const result = await runSvc(['serve', '--host', '0.0.0.0']);
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    expect(result.stderr).toContain('refusing to serve on 0.0.0.0 without SVC_API_KEY');
  });
});

describe.each(BACKENDS)('svc migrate (%s)', (backend) => {
  let fixture: BackendFixture;
  beforeAll(async () => {
    fixture = await createBackend(backend);
  });
  afterAll(async () => fixture?.cleanup());

  it('applies the migrations once, then reports the backend up to date', async () => {
    const first = await runSvc(['migrate'], fixture.env);
    expect(first).toMatchObject({ code: 0, stderr: '' });
    const names = stateMigrations.map((migration) => new migration().name);
    expect(first.stdout).toBe(`applied ${names.length} migration(s): ${names.join(', ')}\n`);
    const second = await runSvc(['migrate'], fixture.env);
    expect(second).toMatchObject({ code: 0, stdout: 'state backend is up to date\n' });
  });
});

describe('svc migrate without a reachable backend', () => {
  it('fails with one line and exit 1', async () => {
    const port = await freePort();
    const result = await runSvc(['migrate'], {
      SVC_STATE_BACKEND: 'postgres',
      SVC_STATE_DSN: `postgres://svc:hunter2@127.0.0.1:${port}/svc`,
    });
    expect(result.code).toBe(1);
    const lines = result.stderr.split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^svc: cannot reach the postgres state backend: .*ECONNREFUSED/);
    expect(result.stderr).not.toContain('hunter2');
  });
});

describe('svc serve', () => {
  let fixture: BackendFixture;
  beforeAll(async () => {
    fixture = await createBackend('sqlite');
  });
  afterAll(async () => fixture?.cleanup());

  it('serves until SIGTERM, finishes the request in flight, then exits 0', async () => {
    const port = await freePort();
    const child = spawnSvc(['serve', '--port', String(port)], {
      ...fixture.env,
      SVC_API_KEY: 'cli-test-key-1',
    });
    const done = collect(child, 30_000);
    const url = `http://127.0.0.1:${port}`;
    await waitReady(url);
    const info = await request(url).get('/info').set('X-API-Key', 'cli-test-key-1').expect(200);
    expect(info.body.version).toBe(pkg.version);

    // Node's own parser refusals carry a problem body in the served CLI too.
    const refused = await new Promise<string>((resolve) => {
      const raw = connect(port, '127.0.0.1');
      let text = '';
      raw.on('data', (chunk: Buffer) => (text += chunk.toString()));
      raw.on('close', () => resolve(text));
      raw.end('NOT HTTP\r\n\r\n');
    });
    expect(refused).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(refused).toContain('Content-Type: application/problem+json');
    expect(refused).toContain('"type":"urn:svc:problem:bad-request"');

    // A request whose headers are still arriving when SIGTERM lands.
    const socket = connect(port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    let response = '';
    socket.on('data', (chunk: Buffer) => (response += chunk.toString()));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.write('GET /healthz HTTP/1.1\r\nHost: test\r\n');
    child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 300));
    socket.write('\r\n');
    await closed;

    expect(response).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(response).toContain('{"status":"ok"}');
    const result = await done;
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('svc gateway listening on http://127.0.0.1:');
    await expect(request(url).get('/healthz')).rejects.toThrow();
  });

  it('starts without loading the modules of features it never uses (prompts, phone numbers, PostgreSQL on sqlite)', async () => {
    const port = await freePort();
    const report = join(mkdtempSync(join(tmpdir(), 'svc-loaded-')), 'packages.json');
    const preload = new URL('./support/loaded-packages.mjs', import.meta.url).href;
    const child = spawnSvc(['serve', '--port', String(port)], {
      ...fixture.env,
      SVC_API_KEY: 'cli-test-key-1',
      NODE_OPTIONS: `--import ${preload}`,
      LOADED_PACKAGES_FILE: report,
    });
    const done = collect(child, 30_000);
    const url = `http://127.0.0.1:${port}`;
    await waitReady(url);
    await request(url).get('/info').set('X-API-Key', 'cli-test-key-1').expect(200);
    child.kill('SIGTERM');
    expect((await done).code).toBe(0);

    const files = JSON.parse(readFileSync(report, 'utf8')) as Record<string, number>;
    expect(files['nest-commander']).toBeGreaterThan(1); // the report does see the CLI's packages
    expect(files['class-validator']).toBeGreaterThan(1);
    // Each is its stand-in alone (cli/deferred-modules.ts); loaded, each is many files.
    expect(files['inquirer'] ?? 0).toBeLessThanOrEqual(1);
    expect(files['lodash'] ?? 0).toBe(0);
    expect(files['libphonenumber-js'] ?? 0).toBeLessThanOrEqual(1);
    // The PostgreSQL driver comes with the backend that uses it (StateDatabase).
    expect(files['typeorm']).toBeGreaterThan(1);
    expect(files['pg'] ?? 0).toBe(0);
  });

  it('exits 1 with one line when its port is taken, instead of running without a listener', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    try {
      const result = await runSvc(['serve', '--port', String(port)], fixture.env, 30_000);
      expect(result.signal).toBeNull(); // it ended by itself, not by the test's kill
      expect(result.code).toBe(1);
      expect(result.stderr.split('\n').filter(Boolean)).toEqual([
        `svc: cannot listen on 127.0.0.1:${port}: address already in use`,
      ]);
      expect(result.stdout).not.toContain('svc gateway listening');
    } finally {
      taken.close();
    }
  });
});

describe('svc serve that cannot start (PostgreSQL: an open pool must not keep it alive)', () => {
  let fixture: BackendFixture;
  beforeAll(async () => {
    fixture = await createBackend('postgres');
  });
  afterAll(async () => fixture?.cleanup());

  it('exits 2 with one line when the board file cannot be opened', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-board-'));
    const file = join(dir, 'not-a-directory');
    writeFileSync(file, 'the board wants a directory here');
    const child = spawnSvc(['serve', '--port', String(await freePort())], {
      ...fixture.env,
      SVC_BOARD_DB: join(file, 'board.sqlite'),
    });
    let reportedAt = 0;
    child.stderr?.once('data', () => (reportedAt = Date.now()));
    const result = await collect(child, 30_000);
    // Reported, then gone at once: no idle pool connection keeps it alive for seconds.
    expect(Date.now() - reportedAt).toBeLessThan(3_000);
    expect(result.signal).toBeNull();
    expect(result.code).toBe(2);
    const lines = result.stderr.split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^svc: invalid configuration: SVC_BOARD_DB ".*board\.sqlite" cannot be opened: /,
    );
  });
});

describe('svc run', () => {
  let fixture: BackendFixture;
  beforeAll(async () => {
    fixture = await createBackend('sqlite');
  });
  afterAll(async () => fixture?.cleanup());

  it('runs the agent in-process and prints the reply, then turns, tool calls and finish reason', async () => {
    const result = await runSvc(
      ['run', '--tenant', 'acme', '--prompt', '/tool calculator {"expression":"2*(3+4)"}'],
      fixture.env,
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const [reply, summary] = result.stdout.trimEnd().split('\n\n');
    expect(reply).toContain('14');
    expect(summary).toMatch(/^turns: 2 · tool calls: 1 · finish: stop · session: \S+$/);
  });

  it('prints the run as JSON and continues a session', async () => {
    const first = await runSvc(
      ['run', '--tenant', 'acme', '--session', 'cli-s', '--prompt', 'one', '--json'],
      fixture.env,
    );
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({
      status: 'completed',
      text: 'one',
      session_id: 'cli-s',
    });
    const second = await runSvc(
      ['run', '--tenant', 'acme', '--session', 'cli-s', '--prompt', 'two', '--json'],
      fixture.env,
    );
    expect(JSON.parse(second.stdout)).toMatchObject({ text: 'two', session_id: 'cli-s' });
  });

  it('reads the prompt from stdin', async () => {
    const child = spawnSvc(['run', '--tenant', 'acme'], fixture.env);
    child.stdin?.end('hello from stdin\n');
    const result = await collect(child);
    expect(result.code).toBe(0);
    expect(result.stdout.startsWith('hello from stdin\n\n')).toBe(true);
  });

  it('needs a tenant and a prompt', async () => {
    const noTenant = await runSvc(['run', '--prompt', 'x'], fixture.env);
    expect(noTenant.code).toBe(1);
    expect(noTenant.stderr.trim()).toBe('svc: --tenant is required (or set SVC_TENANT)');
    const withDefault = await runSvc(['run', '--prompt', 'x'], {
      ...fixture.env,
      SVC_TENANT: 'acme',
    });
    expect(withDefault.code).toBe(0);
  });
});
