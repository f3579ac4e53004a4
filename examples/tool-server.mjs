#!/usr/bin/env node
// A sample HTTP tool endpoint for the README's examples (`npm run example:tools`): the gateway
// POSTs a tool's validated arguments here as JSON and passes the answer back. Plain node:http, no
// dependencies. Listens on 127.0.0.1:9000 (EXAMPLE_TOOLS_PORT to change).
import { createServer } from 'node:http';

const port = Number(process.env.EXAMPLE_TOOLS_PORT ?? 9000);

/** A small order book the `lookup` tool reads. */
const ORDERS = {
  'A-17': { order: 'A-17', status: 'shipped', items: 3, carrier: 'DHL', eta: '2026-12-02' },
  'B-42': { order: 'B-42', status: 'packing', items: 1, carrier: null, eta: '2026-12-05' },
};

/** Each route is one tool: it gets the arguments, answers JSON (or streams progress). */
const TOOLS = {
  // An order by its id; an unknown id is a tool error the model (or caller) sees.
  '/lookup': (args, res) => {
    const found = ORDERS[String(args.order ?? '')];
    if (found) return json(res, 200, found);
    return json(res, 404, { error: `no order ${String(args.order)}` });
  },
  // A slow job that reports progress: MCP clients that send a progressToken see each step.
  '/report': async (args, res) => {
    const steps = Math.min(Math.max(Number(args.steps ?? 3), 1), 10);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (let step = 1; step <= steps; step += 1) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      res.write(
        `data: ${JSON.stringify({ progress: step, total: steps, message: `step ${step}` })}\n\n`,
      );
    }
    res.end(`data: ${JSON.stringify({ result: { report: `done in ${steps} steps` } })}\n\n`);
  },
};

function json(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

const server = createServer((req, res) => {
  const tool = TOOLS[req.url ?? ''];
  if (req.method !== 'POST' || !tool) return json(res, 404, { error: 'POST /lookup or /report' });
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    let args;
    try {
      args = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
    } catch {
      return json(res, 400, { error: 'the body is not JSON' });
    }
    const from = `${String(req.headers['x-tenant-id'])}/${String(req.headers['x-tool-name'])}`;
    console.log(`${new Date().toISOString()} ${from} ${req.url} ${JSON.stringify(args)}`);
    void Promise.resolve(tool(args, res)).catch((error) => {
      console.error(error);
      res.destroy();
    });
  });
});

server.listen(port, '127.0.0.1', () => {
  console.log(
    `example tools on http://127.0.0.1:${port}: POST /lookup {"order"}, POST /report {"steps"}`,
  );
});
