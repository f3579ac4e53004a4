import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { type BackendFixture, createBackend } from './support/backends.js';
import { type CliResult, collect, runSvc, spawnSvc } from './support/cli.js';
import { type GatedEndpoint, startGatedEndpoint } from './support/gated-endpoint.js';
import { type RunningGateway, startGateway } from './support/gateway.js';
import { MockModel } from './support/mock-model.js';
import { TcpProxy } from './support/tcp-proxy.js';

const KEY = 'cli-stream-root-key';
const as = { Authorization: `Bearer ${KEY}` };
const TENANT = 'acme';
const CALC = '/tool calculator {"expression":"2*(3+4)"}';
const SUMMARY = /^turns: 2 · tool calls: 1 · finish: stop · session: \S+$/;

const lines = (text: string) => text.split('\n').filter(Boolean);
const count = (text: string, part: string) => text.split(part).length - 1;

/** Resolves once the child has written `part` to stderr. */
function onStderr(child: ReturnType<typeof spawnSvc>, part: string): Promise<void> {
  let seen = '';
  return new Promise((resolve) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes(part)) resolve();
    });
  });
}

describe('svc run --stream against a serving gateway', () => {
  let fixture: BackendFixture;
  let gateway: RunningGateway;
  let gate: GatedEndpoint;
  const env = () => ({ SVC_API_KEY: KEY, SVC_TENANT: TENANT });

  beforeAll(async () => {
    gate = await startGatedEndpoint();
    fixture = await createBackend('sqlite');
    gateway = await startGateway({ ...fixture.env, SVC_API_KEY: KEY });
    await request(gateway.url)
      .put('/v1/toolsets/ops/tools/wait')
      .set(as)
      .send({
        tenant_id: TENANT,
        description: 'waits for the test',
        parameters: { type: 'object', properties: {} },
        endpoint: { url: gate.url },
      })
      .expect(200);
  });
  afterAll(async () => {
    await gateway?.close();
    await fixture?.cleanup();
    await gate?.close();
  });

  it('prints tool calls as progress lines on stderr and the usual output on stdout', async () => {
    const streamed = await runSvc(
      ['run', '--url', gateway.url, '--stream', '--prompt', CALC],
      env(),
    );
    expect(streamed.code).toBe(0);
    expect(lines(streamed.stderr)).toEqual([
      expect.stringMatching(/^→ tool calculator \{"expression":"2\*\(3\+4\)"\}$/),
      expect.stringMatching(/^← calculator \d+ ms$/),
    ]);
    const [reply, summary] = streamed.stdout.trimEnd().split('\n\n');
    expect(reply).toBe('calculator → 14');
    expect(summary).toMatch(SUMMARY);

    // With --json stdout is the run, as unstreamed; progress still goes to stderr.
    const json = await runSvc(
      ['run', '--url', gateway.url, '--stream', '--json', '--prompt', CALC],
      env(),
    );
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      status: 'completed',
      text: 'calculator → 14',
      tool_calls: 1,
    });
    expect(json.stderr).toContain('→ tool calculator');
  });

  it('goes on after the connection is cut mid-run, without repeating an event', async () => {
    const proxy = new TcpProxy('127.0.0.1', Number(new URL(gateway.url).port));
    await proxy.start();
    try {
      const child = spawnSvc(
        [
          'run',
          ...['--url', `http://127.0.0.1:${proxy.port}`],
          ...['--toolset', 'ops', '--stream', '--prompt', '/tool wait {}'],
        ],
        env(),
      );
      const started = onStderr(child, '→ tool wait');
      const done = collect(child, 30_000);
      await started;
      await gate.arrived();
      // The run is held in its tool call: cut every connection, then let the run finish.
      await proxy.stop();
      await proxy.start();
      gate.release();
      const result: CliResult = await done;
      expect(result.code).toBe(0);
      expect(result.stderr).toMatch(
        /^svc: the connection was cut .*; reading on from event \d+ of run \S+ \(attempt 1 of 5\)$/m,
      );
      expect(count(result.stderr, '→ tool wait {}')).toBe(1);
      expect(count(result.stderr, '← wait ')).toBe(1);
      expect(result.stdout).toMatch(
        /^wait → .*released.*\n\nturns: 2 · tool calls: 1 · finish: stop · session: \S+\n$/,
      );
    } finally {
      await proxy.stop();
    }
  });

  it('ends as an unstreamed run does when the run cannot start', async () => {
    for (const extra of [[], ['--stream']]) {
      const result = await runSvc(
        ['run', '--url', gateway.url, '--agent', 'nope', '--prompt', 'x', ...extra],
        env(),
      );
      expect(result).toMatchObject({ code: 1, stdout: '' });
      expect(result.stderr).toBe('svc: run failed (404): no agent "nope"\n');
    }
  });

  it('prints the usage for a mistake in its options', async () => {
    const result = await runSvc(['run', '--stream', '--url'], env());
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("option '--url <url>' argument missing");
    expect(result.stderr).toContain('Usage: svc run [options]');
    expect(result.stderr).toContain('--stream');
  });
});

describe('svc run --stream of a run that fails', () => {
  const model = new MockModel();
  let fixture: BackendFixture;
  let gateway: RunningGateway;
  beforeAll(async () => {
    await model.start();
    model.reset(() => ({ status: 500, body: { error: 'overloaded' } }));
    fixture = await createBackend('sqlite');
    gateway = await startGateway({
      ...fixture.env,
      SVC_API_KEY: KEY,
      SVC_PROVIDER_API_KEY: 'sk-upstream',
      SVC_PROVIDER_URL: `${model.url}/v1`,
      SVC_MODEL: 'test-model',
    });
  });
  afterAll(async () => {
    await gateway?.close();
    await fixture?.cleanup();
    await model.close();
  });

  it('exits 1 with the line an unstreamed run prints', async () => {
    const plain = await runSvc(['run', '--url', gateway.url, '--prompt', 'hi'], {
      SVC_API_KEY: KEY,
      SVC_TENANT: TENANT,
    });
    const streamed = await runSvc(['run', '--url', gateway.url, '--prompt', 'hi', '--stream'], {
      SVC_API_KEY: KEY,
      SVC_TENANT: TENANT,
    });
    expect(plain).toMatchObject({ code: 1, stdout: '' });
    expect(plain.stderr).toMatch(/^svc: run failed \(502\): .+\n$/);
    expect(streamed).toMatchObject({ code: 1, stdout: '', stderr: plain.stderr });
  });
});

describe('svc run --stream in-process', () => {
  let fixture: BackendFixture;
  beforeAll(async () => {
    fixture = await createBackend('sqlite');
  });
  afterAll(async () => fixture?.cleanup());

  it('shows the events of the run it executes, then the usual output', async () => {
    const result = await runSvc(['run', '--tenant', TENANT, '--stream', '--prompt', CALC], {
      ...fixture.env,
    });
    expect(result.code).toBe(0);
    expect(lines(result.stderr)).toEqual([
      expect.stringMatching(/^→ tool calculator /),
      expect.stringMatching(/^← calculator \d+ ms$/),
    ]);
    const [reply, summary] = result.stdout.trimEnd().split('\n\n');
    expect(reply).toBe('calculator → 14');
    expect(summary).toMatch(SUMMARY);
  });
});

/**
 * A stand-in for a gateway whose model streams (the run's text arrives as deltas), which cuts
 * the streamed POST after event 3 and answers the first resume with 503: what the CLI must get
 * through without showing an event twice.
 */
describe('svc run --stream across a cut stream (scripted gateway)', () => {
  const run = {
    run_id: 'r-scripted',
    session_id: 's-1',
    tenant_id: TENANT,
    agent: 'default',
    status: 'completed',
    text: 'Hello world!',
    finish_reason: 'stop',
    turns: 1,
    tool_calls: 0,
    messages: [],
    trace_id: null,
    started_at: '2026-11-23T00:00:00.000Z',
    ended_at: '2026-11-23T00:00:01.000Z',
  };
  const events = [
    ['run.started', { run: { ...run, status: 'running', text: '' } }],
    ['model.delta', { turn: 1, text: 'Hello' }],
    ['model.delta', { turn: 1, text: ' world' }],
    ['model.delta', { turn: 1, text: '!' }],
    ['run.progressed', { turns: 1, tool_calls: 0 }],
    ['run.settled', { run }],
  ] as const;
  const sse = (id: number) => {
    const [type, data] = events[id - 1];
    const body = { id, type, at: '2026-11-23T00:00:00.000Z', data };
    return `id: ${id}\nevent: ${type}\ndata: ${JSON.stringify(body)}\n\n`;
  };
  const resumes: Array<string | undefined> = [];
  let failResumes = 1;
  let server: Server;
  let url: string;

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    const streamHead = {
      'Content-Type': 'text/event-stream; charset=utf-8',
      Location: `/v1/runs/${run.run_id}?tenant_id=${TENANT}`,
    };
    if (req.method === 'POST' && req.url === '/v1/agent/run') {
      res.writeHead(200, streamHead);
      // Three events, half of the fourth, then the connection breaks.
      res.write(`retry: 2000\n\n${sse(1)}${sse(2)}${sse(3)}${sse(4).slice(0, 12)}`);
      setTimeout(() => res.socket?.destroy(), 50);
      return;
    }
    if (req.url === `/v1/runs/${run.run_id}/events?tenant_id=${TENANT}`) {
      resumes.push(req.headers['last-event-id'] as string | undefined);
      if (failResumes > 0) {
        failResumes -= 1;
        res.writeHead(503, { 'Content-Type': 'application/problem+json' });
        res.end(JSON.stringify({ status: 503, detail: 'the state backend is unavailable' }));
        return;
      }
      res.writeHead(200, streamHead);
      // From an event already shown: the CLI must not show it again.
      const from = Number(req.headers['last-event-id'] ?? 0);
      res.end(
        [2, 3, 4, 5, 6]
          .filter((id) => id >= from)
          .map(sse)
          .join(''),
      );
      return;
    }
    res.writeHead(404).end();
  };

  beforeAll(async () => {
    server = createServer(handle);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('prints the text as it streams and resumes after the last event received', async () => {
    const result = await runSvc(['run', '--url', url, '--stream', '--prompt', 'hi'], {
      SVC_API_KEY: KEY,
      SVC_TENANT: TENANT,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      'Hello world!\n\nturns: 1 · tool calls: 0 · finish: stop · session: s-1\n',
    );
    expect(resumes).toEqual(['3', '3']);
    expect(lines(result.stderr)).toEqual([
      expect.stringMatching(
        /^svc: the connection was cut \(.+\); reading on from event 3 of run r-scripted \(attempt 1 of 5\)$/,
      ),
      'svc: run events failed (503): the state backend is unavailable; reading on from event 3 of run r-scripted (attempt 2 of 5)',
    ]);
  });

  it('gives up after five attempts, saying where the events can be read', async () => {
    resumes.length = 0;
    failResumes = 5;
    const result = await runSvc(['run', '--url', url, '--stream', '--prompt', 'hi'], {
      SVC_API_KEY: KEY,
      SVC_TENANT: TENANT,
    });
    expect(result.code).toBe(1);
    expect(resumes).toEqual(['3', '3', '3', '3', '3']);
    expect(result.stdout).toBe('Hello world\n');
    expect(lines(result.stderr).at(-1)).toBe(
      'svc: lost the events of run r-scripted after event 3 (run events failed (503): the state backend is unavailable); ' +
        `read them with GET /v1/runs/r-scripted/events?tenant_id=${TENANT}`,
    );
  });
});
