import { connect } from 'node:net';

/** What came back on the wire: enough to judge status, content type and body. */
export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** An event stream was cut after its headers (it would never end on its own). */
  streamed: boolean;
}

function parseHead(head: string): { status: number; headers: Record<string, string> } {
  const [statusLine, ...lines] = head.split('\r\n');
  const match = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
  if (!match) throw new Error(`not an HTTP status line: ${JSON.stringify(statusLine)}`);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0)
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(match[1]), headers };
}

/** The payload of a chunked body, or undefined while it is incomplete. */
function dechunk(data: Buffer): Buffer | undefined {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', at);
    if (lineEnd < 0) return undefined;
    const size = parseInt(data.subarray(at, lineEnd).toString('latin1'), 16);
    if (Number.isNaN(size)) throw new Error('malformed chunk size');
    if (size === 0) return Buffer.concat(parts);
    const start = lineEnd + 2;
    if (data.length < start + size + 2) return undefined;
    parts.push(data.subarray(start, start + size));
    at = start + size + 2;
  }
}

/**
 * Sends `request` (the exact bytes of an HTTP/1.1 request, however malformed) on a new
 * connection and reads one response. Rejects when nothing complete arrives within `timeoutMs`:
 * for a gateway that must always answer, that is a stall.
 */
export function sendRaw(
  port: number,
  request: Buffer,
  options: { timeoutMs: number; head?: boolean; endAfterWrite?: boolean },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = Buffer.alloc(0);
    let settled = false;
    const finish = (error: Error | undefined, response?: RawResponse) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve(response!);
    };
    const timer = setTimeout(
      () => finish(new Error(`no complete answer within ${options.timeoutMs} ms`)),
      options.timeoutMs,
    );
    const tryParse = (ended: boolean) => {
      const headEnd = data.indexOf('\r\n\r\n');
      if (headEnd < 0) {
        if (ended)
          finish(new Error(`connection closed without a response head (${data.length} bytes)`));
        return;
      }
      const { status, headers } = parseHead(data.subarray(0, headEnd).toString('latin1'));
      const rest = data.subarray(headEnd + 4);
      if (status >= 100 && status < 200) {
        // An interim answer (100 Continue): the real one follows.
        data = rest;
        return tryParse(ended);
      }
      const done = (body: Buffer, streamed = false) =>
        finish(undefined, { status, headers, body, streamed });
      if (options.head || status === 204 || status === 304) {
        return done(Buffer.alloc(0));
      }
      if ((headers['content-type'] ?? '').startsWith('text/event-stream')) return done(rest, true);
      if (headers['transfer-encoding']?.toLowerCase() === 'chunked') {
        const body = dechunk(rest);
        if (body) return done(body);
      } else if (headers['content-length'] !== undefined) {
        const length = Number(headers['content-length']);
        if (rest.length >= length) return done(rest.subarray(0, length));
      } else if (ended) {
        return done(rest);
      }
      if (ended)
        finish(new Error(`connection closed in the middle of the body (status ${status})`));
    };
    socket.on('data', (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      tryParse(false);
    });
    socket.on('end', () => tryParse(true));
    socket.on('error', (error) => {
      // The server may answer and close before it has read all we sent (413, 431): an EPIPE
      // or ECONNRESET after a complete answer is not a failure.
      tryParse(true);
      finish(error);
    });
    socket.write(request);
    // Half-closing tells a server waiting for more bytes that none will come.
    if (options.endAfterWrite) socket.end();
  });
}
