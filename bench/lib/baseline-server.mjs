/**
 * The HTTP baseline: a raw node:http server doing comparable work to the gateway's GET /info
 * (compare the Authorization header, answer a small JSON body). Run as a child process:
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

createServer((req, res) => {
  if (req.url === '/readyz') return json(res, 200, { status: 'ready' });
  if (req.headers.authorization !== expected) return json(res, 401, { error: 'unauthorized' });
  return json(res, 200, { name: 'baseline', method: req.method, path: req.url, ok: true });
}).listen(port, '127.0.0.1');

process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
