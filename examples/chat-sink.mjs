#!/usr/bin/env node
// A local stand-in for Slack and Teams incoming webhooks (`npm run example:chat`), so the
// messaging examples deliver somewhere: prints every reply the gateway posts. Point
// SVC_CHATA_WEBHOOK at http://127.0.0.1:9100/slack and SVC_CHATB_WEBHOOK at
// http://127.0.0.1:9100/teams. Listens on 127.0.0.1:9100 (EXAMPLE_CHAT_PORT to change).
import { createServer } from 'node:http';

const port = Number(process.env.EXAMPLE_CHAT_PORT ?? 9100);

/** The text of a Slack (`{text}`) or Teams (an Adaptive Card's TextBlocks) message. */
function textOf(body) {
  if (typeof body.text === 'string') return body.text;
  const cards = Array.isArray(body.attachments) ? body.attachments : [];
  return cards
    .flatMap((card) => card?.content?.body ?? [])
    .map((block) => block?.text ?? '')
    .join('\n');
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    let body = {};
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
    } catch {
      // Shown as empty text below; the gateway only ever posts JSON.
    }
    const channel = req.url === '/teams' ? 'chatb (Teams)' : 'chata (Slack)';
    const key = req.headers['idempotency-key'] ?? '-';
    console.log(`${new Date().toISOString()} ${channel} [${String(key)}]: ${textOf(body)}`);
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('1');
  });
});

server.listen(port, '127.0.0.1', () => {
  console.log(`example chat sink on http://127.0.0.1:${port}: POST /slack, POST /teams`);
});
