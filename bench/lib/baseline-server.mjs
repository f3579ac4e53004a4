/**
 * The HTTP baseline: a raw node:http server doing comparable work to the gateway (compare the
 * Authorization header, answer a small JSON body). GET answers at once, like GET /info; a request
 * with a body (POST) is read to the end and parsed as JSON first, like a tool call. Run as a child
 * process:
 *   BASELINE_API_KEY=... node bench/lib/baseline-server.mjs <port>
 * /readyz answers without a key. Exits when its parent closes stdin (the runner died).
 */
import { Buffer } from 'node:buffer';
import { createServer } from 'node:http';

const port = Number(process.argv[2]);
const expected = `Bearer ${process.env.BASELINE_API_KEY ?? ''}`;

function json(res, status, value) {
  const body = JSON.stringify(value);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}

/** The body as parsed JSON (about the size of the gateway's tool-call answer), or a 400. */
function answerBody(req, res) {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    let parsed;
    try {
      parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return json(res, 400, { error: 'malformed JSON' });
    }
    const result = parsed?.arguments?.text ?? null;
    return json(res, 200, {
      name: 'baseline',
      method: req.method,
      path: req.url,
      result,
      ok: true,
    });
  });
}

createServer((req, res) => {
  if (req.url === '/readyz') return json(res, 200, { status: 'ready' });
  // The stand-in for a tenant's HTTP tool: tools are not sent the gateway's key.
  if (req.url === '/tool' && req.method === 'POST') return answerBody(req, res);
  if (req.headers.authorization !== expected) return json(res, 401, { error: 'unauthorized' });
  if (req.method === 'POST') return answerBody(req, res);
  return json(res, 200, { name: 'baseline', method: req.method, path: req.url, ok: true });
}).listen(port, '127.0.0.1');

process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
