/**
 * The fan-out baseline: a bare node:http server that sends `n` server-sent events of `size`
 * bytes of data to every client of GET /stream?n=&size= as fast as the socket takes them (the
 * gateway's stream writer's shape: `retry:` first, then `id:`/`event:`/`data:` blocks, waiting
 * for drain). Run as a child process: node bench/lib/sse-baseline-server.mjs <port>.
 * Exits when its parent closes stdin.
 */
import { createServer } from 'node:http';

const port = Number(process.argv[2]);

async function stream(res, n, size) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.write('retry: 2000\n\n');
  const data = JSON.stringify({ pad: 'x'.repeat(Math.max(0, size - 10)) });
  for (let id = 1; id <= n; id++) {
    if (!res.write(`id: ${id}\nevent: model.delta\ndata: ${data}\n\n`)) {
      await new Promise((resolve) => res.once('drain', resolve));
    }
  }
  res.end();
}

createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://localhost');
  if (url.pathname === '/readyz') return res.end('{"status":"ready"}');
  if (url.pathname !== '/stream') {
    res.writeHead(404);
    return res.end();
  }
  void stream(
    res,
    Number(url.searchParams.get('n') ?? 100),
    Number(url.searchParams.get('size') ?? 100),
  );
}).listen(port, '127.0.0.1');

process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
