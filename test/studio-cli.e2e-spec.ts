import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { StudioSnapshot } from '../src/studio/studio-records.js';
import { type BackendFixture, createBackend } from './support/backends.js';
import { runSvc } from './support/cli.js';
import { type RunningGateway, startGateway } from './support/gateway.js';
import { writeKeysFile } from './support/keys-file.js';
import { freePort } from './support/net.js';

const ROOT = 'studio-cli-root-key';
const B_VIEWER = 'studio-cli-b-viewer';
const as = (key: string) => ({ Authorization: `Bearer ${key}` });

describe('svc studio show and svc run --url against a running gateway', () => {
  let fixture: BackendFixture;
  let gateway: RunningGateway;
  let port: string;
  beforeAll(async () => {
    fixture = await createBackend('sqlite');
    gateway = await startGateway({
      ...fixture.env,
      SVC_API_KEY: ROOT,
      SVC_KEYS_FILE: writeKeysFile({
        keys: [{ id: 'b-view', key: B_VIEWER, tenant_id: 'b', roles: ['viewer'] }],
      }),
    });
    port = new URL(gateway.url).port;
    for (const [tenant, prompt] of [
      ['a', 'first prompt of a'],
      ['a', '/tool calculator {"expression":"2+3"}'],
      ['b', 'a prompt of b'],
    ]) {
      await request(gateway.url)
        .post('/v1/agent/run')
        .set(as(ROOT))
        .send({ tenant_id: tenant, prompt })
        .expect(200);
    }
  });
  afterAll(async () => {
    await gateway?.close();
    await fixture?.cleanup();
  });

  it('prints the sessions and loops tables and the counts of one tenant', async () => {
    const result = await runSvc(['studio', 'show', '--url', gateway.url, '--tenant', 'a'], {
      SVC_API_KEY: ROOT,
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const [sessions, loops, counts] = result.stdout.split('\n\n');
    const sessionLines = sessions.split('\n');
    expect(sessionLines[0]).toBe('Sessions (2)');
    expect(sessionLines[1]).toMatch(
      /^SESSION +TENANT +AGENT +TURNS +TOOL CALLS +FINISH +PROMPT +TEXT$/,
    );
    expect(sessionLines[2]).toMatch(
      /^\S+ +a +default +2 +1 +stop +\/tool calculator \{"expression":"2\+3"\} +calculator → 5$/,
    );
    expect(sessionLines[3]).toMatch(/^\S+ +a +default +1 +0 +stop +first prompt of a +first/);
    // Columns line up: every row starts its TENANT cell where the header does.
    const tenantColumn = sessionLines[1].indexOf('TENANT');
    for (const line of sessionLines.slice(2)) expect(line.indexOf(' a ') + 1).toBe(tenantColumn);

    const loopLines = loops.split('\n');
    expect(loopLines[0]).toBe('Loops (2)');
    expect(loopLines[1]).toMatch(/^RUN +TENANT +AGENT +STATUS +TURNS +TOOL CALLS +FINISH/);
    expect(loopLines.slice(2).every((line) => / a +default +completed +\d/.test(line))).toBe(true);
    expect(counts).toContain('Counts\nsessions 2 · loops 2 · running_loops 0');
    expect(result.stdout).not.toContain('a prompt of b');
  });

  it('prints the snapshot as JSON with --json, from the local serve address by default', async () => {
    const result = await runSvc(['studio', 'show', '--tenant', 'a', '--json', '--limit', '1'], {
      SVC_API_KEY: ROOT,
      SVC_PORT: port,
    });
    expect(result.code).toBe(0);
    const snapshot = JSON.parse(result.stdout) as StudioSnapshot;
    expect(snapshot.sessions).toHaveLength(1);
    expect(snapshot.loops).toHaveLength(1);
    expect(snapshot.counts).toMatchObject({ sessions: 2, loops: 2, running_loops: 0 });
    expect(snapshot.sessions[0]).toMatchObject({ type: 'session', tenant_id: 'a' });
  });

  it('posts svc run --url to the gateway, whose studio records it', async () => {
    const result = await runSvc(
      ['run', '--url', gateway.url, '--tenant', 'c', '--prompt', 'run over http', '--json'],
      { SVC_API_KEY: ROOT },
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const record = JSON.parse(result.stdout) as { run_id: string; text: string };
    expect(record.text).toBe('run over http');
    const snapshot = await request(gateway.url)
      .get('/v1/studio?tenant_id=c')
      .set(as(ROOT))
      .expect(200);
    expect(snapshot.body.sessions).toMatchObject([{ prompt: 'run over http' }]);
    expect(snapshot.body.loops).toMatchObject([{ run_id: record.run_id, status: 'completed' }]);

    const human = await runSvc(['run', '--url', gateway.url, '--prompt', 'plain output'], {
      SVC_API_KEY: ROOT,
      SVC_TENANT: 'c',
    });
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^plain output\n\nturns: 1 · tool calls: 0 · finish: stop/);
  });

  it('says in one line that no gateway runs there, and exits 1', async () => {
    const free = await freePort();
    for (const args of [
      ['studio', 'show'],
      ['run', '--url', `http://127.0.0.1:${free}`, '--tenant', 'a', '--prompt', 'x'],
    ]) {
      const result = await runSvc(args, { SVC_API_KEY: ROOT, SVC_PORT: String(free) });
      expect(result).toMatchObject({ code: 1, stdout: '' });
      expect(result.stderr).toBe(
        `svc: no gateway at http://127.0.0.1:${free}: connection refused\n`,
      );
    }
  });

  it('says in one line when the gateway refuses the credential, and exits 1', async () => {
    const show = (env: Record<string, string>, ...extra: string[]) =>
      runSvc(['studio', 'show', '--url', gateway.url, ...extra], env);
    const none = await show({});
    expect(none).toMatchObject({ code: 1, stdout: '' });
    expect(none.stderr).toBe(
      `svc: the gateway at ${gateway.url} needs an API key: set SVC_API_KEY\n`,
    );
    const wrong = await show({ SVC_API_KEY: 'not-the-key' });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toBe(
      `svc: the gateway at ${gateway.url} does not accept the key in SVC_API_KEY (401)\n`,
    );
    const otherTenant = await show({ SVC_API_KEY: B_VIEWER }, '--tenant', 'a');
    expect(otherTenant.code).toBe(1);
    expect(otherTenant.stderr).toBe(
      'svc: the key in SVC_API_KEY may not do this (403): this key may only act for tenant "b"\n',
    );
    // The same key without --tenant sees its own tenant.
    const own = await show({ SVC_API_KEY: B_VIEWER }, '--json');
    expect(JSON.parse(own.stdout).sessions).toMatchObject([{ tenant_id: 'b' }]);
  });

  it('checks its options and lists the command', async () => {
    const limit = await runSvc(['studio', 'show', '--limit', '0'], { SVC_API_KEY: ROOT });
    expect(limit.code).toBe(2);
    expect(limit.stderr.trim()).toBe(
      'svc: invalid configuration: --limit must be an integer between 1 and 500 (got "0")',
    );
    const url = await runSvc(['studio', 'show', '--url', 'ftp://gw'], {});
    expect(url.code).toBe(2);
    expect(url.stderr).toContain('--url must be an http:// or https:// URL');
    const bare = await runSvc(['studio']);
    expect(bare.code).toBe(1);
    expect(bare.stderr).toContain("svc: missing command: 'studio show'");
    expect(bare.stderr).toContain('Usage: svc studio');
    const help = await runSvc(['--help']);
    expect(help.stdout).toMatch(/studio/);
    const showHelp = await runSvc(['studio', 'show', '--help']);
    expect(showHelp.stdout).toContain('Usage: svc studio show [options]');
    expect(showHelp.stdout).toMatch(/--tenant <tenant_id>/);
  });
});
