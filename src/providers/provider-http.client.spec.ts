import { afterEach, describe, expect, it } from '@jest/globals';
import { ProblemException } from '../platform/http/problem.js';
import type { ChatRequest } from './chat.types.js';
import { OpenAiProvider } from './openai.provider.js';
import { hang, json, MockModelServer, type Step } from './testing/mock-model-server.js';
import { captureLogger, providerConfig } from './testing/provider-config.js';

const request: ChatRequest = {
  messages: [{ role: 'user', content: 'hi' }],
  tools: [],
  toolset: 'default',
};
const ok = json(200, { choices: [{ message: { role: 'assistant', content: 'fine' } }] });
const KEY = 'sk-live-0123456789abcdef';

let mock: MockModelServer | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

async function setup(steps: Step[], timeoutMs = 2000) {
  mock = await MockModelServer.start(...steps);
  const logger = captureLogger();
  const config = providerConfig(mock.url, { timeoutMs, apiKey: KEY });
  return { server: mock, logger, provider: new OpenAiProvider(config, logger) };
}

async function problemOf(promise: Promise<unknown>): Promise<ProblemException> {
  const error = await promise.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ProblemException);
  return error as ProblemException;
}

describe('provider HTTP behaviour (through OpenAiProvider)', () => {
  it('retries a 500 and succeeds on the third attempt', async () => {
    const fail = json(500, { error: 'busy' });
    const { server, provider, logger } = await setup([fail, fail, ok]);
    const completion = await provider.complete(request);
    expect(completion.message.content).toBe('fine');
    expect(server.requests).toHaveLength(3);
    expect(logger.lines).toHaveLength(2);
    expect(logger.lines[0]).toMatch(
      /attempt 1 answered 500; retrying in \d+ ms \(upstream: \{"error":"busy"\}\)/,
    );
  });

  it('gives up with 502 after exactly 3 attempts of 500', async () => {
    const { server, provider, logger } = await setup([json(500, { error: 'down' })]);
    const problem = await problemOf(provider.complete(request));
    expect(problem.getStatus()).toBe(502);
    expect(problem.slug).toBe('provider-failed');
    // Classified only: what the endpoint wrote reaches the operator's log, not the tenant.
    expect(problem.message).toBe('the model endpoint answered 500 after 3 attempts');
    expect(server.requests).toHaveLength(3);
    expect(logger.lines).toHaveLength(3);
    expect(logger.lines[2]).toMatch(/attempt 3 answered 500; giving up \(upstream: .*down/);
  });

  it('retries a 429 after its Retry-After', async () => {
    const limited = json(429, { error: 'slow down' }, { 'retry-after': '0' });
    const { server, provider } = await setup([limited, ok]);
    await provider.complete(request);
    expect(server.requests).toHaveLength(2);
  });

  it('stops retrying when Retry-After would outlast the deadline', async () => {
    const { server, provider } = await setup([json(503, {}, { 'retry-after': '30' }), ok]);
    const problem = await problemOf(provider.complete(request));
    expect(problem.getStatus()).toBe(502);
    expect(server.requests).toHaveLength(1);
  });

  it('answers 504 when the endpoint hangs past the deadline', async () => {
    const { provider } = await setup([hang], 300);
    const started = Date.now();
    const problem = await problemOf(provider.complete(request));
    const elapsed = Date.now() - started;
    expect(problem.getStatus()).toBe(504);
    expect(problem.slug).toBe('provider-timeout');
    expect(problem.message).toBe('the model endpoint did not answer within 300 ms');
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(800);
  });

  it('counts retries and backoff against the same deadline', async () => {
    const { server, provider } = await setup([json(500, {}), hang], 300);
    const started = Date.now();
    const problem = await problemOf(provider.complete(request));
    expect(problem.getStatus()).toBe(504);
    expect(problem.message).toMatch(/\(2 attempts; last one answered 500\)$/);
    expect(Date.now() - started).toBeLessThan(800);
    expect(server.requests).toHaveLength(2);
  });

  it('ends at once when the caller aborts, with the caller’s reason', async () => {
    const { provider } = await setup([hang]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('run cancelled')), 50);
    await expect(provider.complete(request, { signal: controller.signal })).rejects.toThrow(
      'run cancelled',
    );
  });

  it.each([400, 401, 403, 404, 422])('answers 502 to a %i without retrying', async (status) => {
    const { server, provider } = await setup([json(status, { error: 'no' }), ok]);
    const problem = await problemOf(provider.complete(request));
    expect(problem.getStatus()).toBe(502);
    expect(problem.message).toBe(`the model endpoint answered ${status}`);
    expect(server.requests).toHaveLength(1);
  });

  it('does not follow redirects (the key must not travel elsewhere)', async () => {
    const { server, provider } = await setup([
      json(307, {}, { location: 'http://example.invalid/' }),
    ]);
    const problem = await problemOf(provider.complete(request));
    expect(problem.message).toBe('the model endpoint answered 307');
    expect(server.requests).toHaveLength(1);
  });

  it('never puts the key, in any spelling or piece, in an error detail or a log line', async () => {
    const odd = 'sk-Live/9f3K+q81"Zp\\X=mW7c2R';
    const echoKey: Step = (req, res) => {
      const key = String(req.headers.authorization).slice('Bearer '.length);
      res.writeHead(401, { 'content-type': 'text/plain' });
      res.end(
        [
          `invalid credential Bearer ${key}`,
          `raw ${key}`,
          `json ${JSON.stringify({ key })}`,
          `url ${encodeURIComponent(key)}`,
          `upper ${key.toUpperCase()}`,
          `cut ${key.slice(0, 12)}…`,
          `basic ${Buffer.from(`user:${key}`).toString('base64')}`,
        ].join('\n'),
      );
    };
    mock = await MockModelServer.start(echoKey);
    const logger = captureLogger();
    const provider = new OpenAiProvider(providerConfig(mock.url, { apiKey: odd }), logger);
    const problem = await problemOf(provider.complete(request));
    expect(problem.getStatus()).toBe(502);
    expect(problem.message).toBe('the model endpoint answered 401');
    const logged = logger.lines.join('\n');
    expect(logged).toContain('answered 401');
    expect(logged).toContain('invalid credential Bearer ***');
    for (const spelling of [
      odd,
      JSON.stringify(odd).slice(1, -1),
      encodeURIComponent(odd),
      odd.toUpperCase(),
      Buffer.from(`user:${odd}`).toString('base64').slice(8, -4),
    ]) {
      for (let i = 0; i + 8 <= spelling.length; i++) {
        const piece = spelling.slice(i, i + 8).toLowerCase();
        expect({ piece, found: logged.toLowerCase().includes(piece) }).toEqual({
          piece,
          found: false,
        });
      }
    }
  });

  it('takes the key out of an answer that echoes it, in content and tool calls', async () => {
    const echoInAnswer: Step = (req, res) => {
      const key = String(req.headers.authorization).slice('Bearer '.length);
      const content = `your key is ${key}, or ${encodeURIComponent(key).toUpperCase()}`;
      const call = {
        id: 'c1',
        type: 'function',
        function: { name: 'echo', arguments: `{"k":"${key}"}` },
      };
      res.writeHead(200, { 'content-type': 'application/json' });
      // \u-escaped, as some servers write non-ASCII: the key is only visible once parsed.
      const body = JSON.stringify({ choices: [{ message: { content, tool_calls: [call] } }] });
      res.end(body.replace('your', '\\u0079our'));
    };
    mock = await MockModelServer.start(echoInAnswer);
    const logger = captureLogger();
    const provider = new OpenAiProvider(providerConfig(mock.url, { apiKey: KEY }), logger);
    const completion = await provider.complete(request);
    expect(completion.message.content).toBe('your key is ***, or ***');
    expect(JSON.stringify(completion)).not.toContain(KEY.slice(0, 8));
    expect(logger.lines).toEqual([
      'the model endpoint echoed the credential in an answer; removed it',
    ]);
  });

  it('retries network errors and reports them as 502', async () => {
    const { server, provider, logger } = await setup([ok]);
    await server.close();
    const problem = await problemOf(provider.complete(request));
    expect(logger.lines[0]).toMatch(
      /attempt 1 is unreachable; retrying in \d+ ms \(upstream: .*ECONNREFUSED/,
    );
    expect(problem.getStatus()).toBe(502);
    // The socket error stays in the log: it would tell a tenant about the network.
    expect(problem.message).toBe('the model endpoint is unreachable after 3 attempts');
  });

  it('does not retry a model endpoint the egress policy refuses', async () => {
    const logger = captureLogger();
    const config = providerConfig('http://169.254.169.254/v1', { timeoutMs: 2000, apiKey: KEY });
    const problem = await problemOf(new OpenAiProvider(config, logger).complete(request));
    expect(problem.getStatus()).toBe(502);
    expect(problem.message).toBe('the model endpoint is refused by the egress policy');
  });

  it('retries a connection dropped mid-request', async () => {
    const drop: Step = (_req, res) => res.socket?.destroy();
    const { server, provider } = await setup([drop, ok]);
    expect((await provider.complete(request)).message.content).toBe('fine');
    expect(server.requests).toHaveLength(2);
  });

  it('answers 502 to a 2xx body that is not JSON, without retrying', async () => {
    const { server, provider } = await setup([json(200, 'not json at all'), ok]);
    const problem = await problemOf(provider.complete(request));
    expect(problem.getStatus()).toBe(502);
    expect(problem.message).toBe("the model endpoint's answer is not JSON");
    expect(server.requests).toHaveLength(1);
  });

  it('refuses an answer that declares more than 10 MiB', async () => {
    const huge: Step = (_req, res) => {
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-length': 11 * 1024 * 1024,
      });
      res.write('{"choices":[');
    };
    const { server, provider } = await setup([huge]);
    const problem = await problemOf(provider.complete(request));
    expect(problem.getStatus()).toBe(502);
    expect(problem.message).toMatch(/larger than 10485760 bytes/);
    expect(server.requests).toHaveLength(1);
  });
});
