/**
 * A minimal OpenAI-compatible model endpoint for the latency bench (the idea of
 * test/support/mock-model.ts, without its scripting). Run as a child process:
 *   node bench/lib/mock-model-server.mjs <port>
 * - POST /v1/chat/completions: reads the body and answers a fixed small chat.completion at once
 *   (`choices[0].message.content`, `finish_reason: 'stop'`), whatever was asked.
 * - GET /last-request: the method-relevant headers and raw body of the latest completion
 *   request, so the bench can replay exactly what the gateway sends.
 * - GET /readyz: 200.
 * Exits when its parent closes stdin (the runner died).
 */
import { Buffer } from 'node:buffer';
import { createServer } from 'node:http';

const port = Number(process.argv[2]);

const COMPLETION = JSON.stringify({
  id: 'chatcmpl-bench',
  object: 'chat.completion',
  created: 0,
  model: 'mock-model',
  choices: [
    {
      index: 0,
      message: { role: 'assistant', content: 'hello from the mock model' },
      finish_reason: 'stop',
    },
  ],
  usage: { prompt_tokens: 10, completion_tokens: 6, total_tokens: 16 },
});

let last = null;

function send(res, status, body) {
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}

createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/readyz') return send(res, 200, '{"status":"ready"}');
  if (req.method === 'GET' && req.url === '/last-request') {
    return last ? send(res, 200, JSON.stringify(last)) : send(res, 404, '{"error":"none yet"}');
  }
  if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
    return send(res, 404, '{"error":"not found"}');
  }
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const { 'content-type': contentType, accept, authorization } = req.headers;
    last = { headers: { contentType, accept, authorization }, body: Buffer.concat(chunks) };
    send(res, 200, COMPLETION);
  });
}).listen(port, '127.0.0.1');

process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
