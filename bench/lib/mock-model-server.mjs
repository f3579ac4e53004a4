/**
 * A minimal OpenAI-compatible model endpoint for the latency bench (the idea of
 * test/support/mock-model.ts, without its scripting). Run as a child process:
 *   node bench/lib/mock-model-server.mjs <port>
 * - POST /v1/chat/completions: reads the body and answers a fixed small chat.completion at once
 *   (`choices[0].message.content`, `finish_reason: 'stop'`), whatever was asked.
 * - GET /last-request: the replayed headers and the body of the latest completion
 *   request, so the bench can replay exactly what the gateway sends.
 * - With `"stream": true` in the request: the same answer as an OpenAI stream of
 *   MOCK_STREAM_TOKENS chunks (20), the first at once and then one every MOCK_STREAM_DELAY_MS (5).
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

/** The headers the gateway's provider client sets, replayed by the direct run. */
const REPLAYED_HEADERS = ['content-type', 'accept', 'authorization'];

let last = null;

const STREAM_REQUEST = /"stream"\s*:\s*true/;
const TOKENS = Number(process.env.MOCK_STREAM_TOKENS ?? 20);
const DELAY_MS = Number(process.env.MOCK_STREAM_DELAY_MS ?? 5);

const chunk = (delta, finish = null) =>
  `data: ${JSON.stringify({
    id: 'chatcmpl-bench',
    object: 'chat.completion.chunk',
    created: 0,
    model: 'mock-model',
    choices: [{ index: 0, delta, finish_reason: finish }],
  })}\n\n`;

/** The answer as a stream: a role chunk and the first token at once, the rest paced. */
function stream(res) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.write(chunk({ role: 'assistant', content: 'tok0 ' }));
  let sent = 1;
  const timer = setInterval(() => {
    if (sent < TOKENS) {
      res.write(chunk({ content: `tok${sent} ` }));
      sent += 1;
      return;
    }
    clearInterval(timer);
    res.write(chunk({}, 'stop'));
    res.end('data: [DONE]\n\n');
  }, DELAY_MS);
  res.on('close', () => clearInterval(timer));
}

const CHAT_WEBHOOK_PATH = '/chat-webhook';

function pick(headers, names) {
  return Object.fromEntries(names.filter((name) => name in headers).map((n) => [n, headers[n]]));
}

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
    if (!last) return send(res, 404, '{"error":"none yet"}');
    const body = Buffer.concat(last.chunks).toString('utf8');
    return send(res, 200, JSON.stringify({ headers: last.headers, body }));
  }
  // A chat system's webhook (the messaging channel's SVC_CHATA_WEBHOOK): takes a reply, 200.
  if (req.method === 'POST' && req.url === CHAT_WEBHOOK_PATH) {
    req.resume();
    return req.on('end', () => send(res, 200, '{"ok":true}'));
  }
  if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
    return send(res, 404, '{"error":"not found"}');
  }
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    // Kept as received; decoded only when asked for.
    last = { headers: pick(req.headers, REPLAYED_HEADERS), chunks };
    if (STREAM_REQUEST.test(Buffer.concat(chunks).toString('utf8'))) return stream(res);
    send(res, 200, COMPLETION);
  });
}).listen(port, '127.0.0.1');

process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
