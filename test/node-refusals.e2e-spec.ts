import { describe, expect, it } from '@jest/globals';
import { connect } from 'node:net';
import { gatewayForSuite } from './support/suite.js';

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Every byte the gateway sends back for `payload`, until it closes the connection. */
function exchange(url: string, payload: string | Buffer): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.write(payload);
    // Half-close like a client that has said everything; the gateway answers and hangs up.
    socket.end();
  });
}

/** The responses in `raw`, in order (bodies framed by Content-Length). */
function responses(raw: string): RawResponse[] {
  const parsed: RawResponse[] = [];
  let rest = raw;
  while (rest.startsWith('HTTP/1.1 ')) {
    const end = rest.indexOf('\r\n\r\n');
    const [statusLine, ...lines] = rest.slice(0, end).split('\r\n');
    const headers = Object.fromEntries(
      lines.map((line) => {
        const colon = line.indexOf(':');
        return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()];
      }),
    );
    const length = Number(headers['content-length'] ?? 0);
    const bodyStart = end + 4;
    parsed.push({
      status: Number(statusLine.split(' ')[1]),
      headers,
      body: Buffer.from(rest.slice(bodyStart)).subarray(0, length).toString('utf8'),
    });
    rest = Buffer.from(rest.slice(bodyStart)).subarray(length).toString('utf8');
  }
  return parsed;
}

function expectProblem(response: RawResponse | undefined, status: number, slug: string): void {
  expect(response?.status).toBe(status);
  expect(response?.headers['content-type']).toBe('application/problem+json');
  expect(JSON.parse(response?.body ?? '')).toMatchObject({
    type: `urn:svc:problem:${slug}`,
    status,
    title: expect.any(String),
    detail: expect.any(String),
  });
}

describe("Node's own refusals answer problem bodies", () => {
  const gateway = gatewayForSuite('sqlite', { SVC_API_KEY: 'node-refusals-test-key' });
  const send = async (payload: string | Buffer) => responses(await exchange(gateway.url, payload));

  it('answers a malformed request line with a 400 problem', async () => {
    const [answer] = await send('NOT A REQUEST LINE\r\n\r\n');
    expectProblem(answer, 400, 'bad-request');
    expect(answer.headers.connection).toBe('close');
  });

  it('answers a malformed header with a 400 problem', async () => {
    const [answer] = await send('GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n');
    expectProblem(answer, 400, 'bad-request');
  });

  it('answers headers larger than Node takes with a 431 problem', async () => {
    const huge = `X-Filler: ${'a'.repeat(20 * 1024)}\r\n`;
    const [answer] = await send(`GET /healthz HTTP/1.1\r\nHost: x\r\n${huge}\r\n`);
    expectProblem(answer, 431, 'header-fields-too-large');
  });

  it('answers an Expect other than 100-continue with a 417 problem', async () => {
    const [answer] = await send(
      'GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: the-impossible\r\nConnection: close\r\n\r\n',
    );
    expectProblem(answer, 417, 'expectation-failed');
    expect(JSON.parse(answer.body).instance).toBe('/healthz');
  });

  it('answers an HTTP/1.1 request without Host with a 400 problem (HTTP/1.0 needs none)', async () => {
    const [answer] = await send('GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n');
    expectProblem(answer, 400, 'bad-request');
    expect(JSON.parse(answer.body).detail).toBe('an HTTP/1.1 request must carry a Host header');

    const [old] = await send('GET /healthz HTTP/1.0\r\n\r\n');
    expect(old.status).toBe(200);
  });

  it('still continues an Expect: 100-continue request', async () => {
    const raw = await exchange(
      gateway.url,
      'GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n',
    );
    expect(raw.startsWith('HTTP/1.1 100 Continue\r\n\r\n')).toBe(true);
    const [answer] = responses(raw.slice('HTTP/1.1 100 Continue\r\n\r\n'.length));
    expect(answer.status).toBe(200);
  });

  it('answers garbage sent on a kept-alive connection after a complete answer', async () => {
    const { hostname, port } = new URL(gateway.url);
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), hostname);
      const chunks: Buffer[] = [];
      let sent = false;
      socket.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        // Once the first answer is complete, the garbage.
        if (!sent && Buffer.concat(chunks).toString('utf8').endsWith('{"status":"ok"}')) {
          sent = true;
          socket.end('GARBAGE\r\n\r\n');
        }
      });
      socket.on('error', reject);
      socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
      socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    });
    const [first, second] = responses(raw);
    expect(first.status).toBe(200);
    expect(JSON.parse(first.body)).toEqual({ status: 'ok' });
    expectProblem(second, 400, 'bad-request');
  });

  it('keeps serving afterwards', async () => {
    const res = await fetch(`${gateway.url}/healthz`);
    expect(res.status).toBe(200);
  });
});
