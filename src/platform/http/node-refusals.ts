import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { PROBLEM_CONTENT_TYPE, type ProblemDetails, problemTitle, problemType } from './problem.js';

/** Node's parser errors and the status Node itself answers them with (else 400). */
const PARSER_STATUS: Record<string, number> = {
  HPE_HEADER_OVERFLOW: 431,
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 413,
  ERR_HTTP_REQUEST_TIMEOUT: 408,
};

const DETAILS: Record<number, string> = {
  400: 'the request is not valid HTTP/1.1',
  408: 'the request did not arrive in time',
  413: 'the chunk extensions of the request body are too large',
  417: 'the only expectation the gateway meets is "Expect: 100-continue"',
  431: 'the request line or headers are too large',
};

function problemBody(status: number, detail: string, instance?: string): string {
  const body: ProblemDetails = {
    type: problemType(status),
    title: problemTitle(status),
    status,
    detail,
    ...(instance === undefined ? {} : { instance }),
  };
  return JSON.stringify(body);
}

/** The response Node is mid-way through on this socket, if any (what Node itself checks). */
function responseInFlight(socket: Duplex): boolean {
  const current = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
  return current?.headersSent ?? false;
}

/**
 * A request Node's HTTP parser refused (bad request line or header, headers too large, a
 * timeout): Node has no request or response object then and, left alone, writes a bare status
 * line. This writes the same status with a problem body, unless the socket is gone or a
 * response is already under way on it (writing then would corrupt that response).
 */
function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable || responseInFlight(socket)) {
    socket.destroy();
    return;
  }
  const status = PARSER_STATUS[error.code ?? ''] ?? 400;
  const body = problemBody(status, DETAILS[status]);
  socket.end(
    `HTTP/1.1 ${status} ${problemTitle(status)}\r\n` +
      `Content-Type: ${PROBLEM_CONTENT_TYPE}\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
    () => socket.destroy(),
  );
}

function send(res: ServerResponse, status: number, detail: string, req: IncomingMessage): void {
  const body = problemBody(status, detail, req.url?.split('?', 1)[0]);
  res.writeHead(status, {
    'Content-Type': PROBLEM_CONTENT_TYPE,
    'Content-Length': Buffer.byteLength(body),
    Connection: 'close',
  });
  res.end(body);
}

/**
 * Gives the answers Node's HTTP server writes by itself a problem+json body, like every other
 * error of the gateway: parser refusals (400, 408, 413, 431) through `clientError`, an
 * `Expect` other than `100-continue` (417) through `checkExpectation`, and an HTTP/1.1 request
 * without `Host` (400), which Node would answer before any middleware: its check is moved into
 * `missingHost`, the first middleware. Installed by createAppFromModule, so `svc serve` and
 * the e2e tests' gateways both have it.
 */
export function answerNodeRefusals(server: Server): void {
  server.on('clientError', answerClientError);
  server.on('checkExpectation', (req, res) => send(res, 417, DETAILS[417], req));
  (server as Server & { requireHostHeader: boolean }).requireHostHeader = false;
}

/** Node's own rule (RFC 9112 section 3.2), with a problem body. */
export function missingHost(req: IncomingMessage, res: ServerResponse, next: () => void): void {
  if (req.httpVersion === '1.1' && req.headers.host === undefined) {
    send(res, 400, 'an HTTP/1.1 request must carry a Host header', req);
    return;
  }
  next();
}
