/**
 * The durable floor: about the least any gateway on this stack does for an echo agent run, a
 * baseline for the `agent` and `latency` parts. Nest + Express + the gateway's pipe on the body
 * (as lib/nest-baseline-server.mjs), then what a durable run stores, written straight through
 * the driver in one transaction: the run's record, its session's conversation, its three events
 * (started, progressed, settled) and its token usage, the rows and about the bytes the gateway
 * writes, in the gateway's own tables (the bench runs `svc migrate` first). With FLOOR_MODEL_URL,
 * one model call comes first (undici, as the gateway's provider client does). Left out: the
 * lease, the checkpoint before the answer, audit, telemetry, idempotency, takeovers; the answer
 * is the run view. Run as a child process (after `npm run build`):
 *   BASELINE_API_KEY=... FLOOR_BACKEND=sqlite FLOOR_SQLITE=<file> node bench/lib/durable-floor-server.mjs <port>
 *   BASELINE_API_KEY=... FLOOR_BACKEND=postgres FLOOR_DSN=<url> [FLOOR_MODEL_URL=<base>/v1] ...
 * /readyz answers without a key. Exits when its parent closes stdin (the runner died).
 */
import { Body, Get, Headers, HttpCode, Post } from '@nestjs/common';
import { IsOptional, IsString } from 'class-validator';
import { randomUUID } from 'node:crypto';
import { request } from 'undici';
import { createValidationPipe } from '../../dist/src/platform/http/validation.pipe.js';
import { authorize, decorateMethod, decorateParams, serveController } from './nest-bench-app.mjs';

const backend = process.env.FLOOR_BACKEND ?? 'sqlite';
const modelUrl = process.env.FLOOR_MODEL_URL;

const STATEMENTS = {
  entry:
    'INSERT INTO state_entries (tenant_id, session_id, key, value, version, updated_at) ' +
    'VALUES ($1, $2, $3, $4, 1, $5)',
  event:
    'INSERT INTO run_events (tenant_id, run_id, seq, type, data, created_at) ' +
    'VALUES ($1, $2, $3, $4, $5, $6)',
  usage:
    'INSERT INTO token_usage (tenant_id, day, agent, model, prompt_tokens, completion_tokens, ' +
    'calls, runs, updated_at) VALUES ($1, $2, $3, $4, $5, $6, 1, 1, $7) ' +
    'ON CONFLICT (tenant_id, day, agent, model) DO UPDATE SET ' +
    'prompt_tokens = token_usage.prompt_tokens + excluded.prompt_tokens, ' +
    'completion_tokens = token_usage.completion_tokens + excluded.completion_tokens, ' +
    'calls = token_usage.calls + 1, runs = token_usage.runs + 1, updated_at = excluded.updated_at',
  audit:
    'INSERT INTO audit_events (tenant_id, kind, actor, run_id, at, details) ' +
    "VALUES ($1, 'run.started', 'root', $2, $3, $4), ($1, 'run.completed', 'root', $2, $3, $5)",
  loop:
    'INSERT INTO studio_loops (tenant_id, run_id, id, status, started_ms, updated_ms, format, ' +
    "record) VALUES ($1, $2, $3, 'completed', $4, $4, 1, $5)",
  session:
    'INSERT INTO studio_sessions (tenant_id, session_id, runs, updated_ms, format, record) ' +
    'VALUES ($1, $2, 1, $3, 1, $4)',
};

/**
 * The gateway keeps its audit trail and studio records in the database on PostgreSQL
 * (SVC_AUDIT_STORE, SVC_STUDIO_STORE default `state` there) and in memory on sqlite.
 */
const recordsInDatabase = backend === 'postgres';

/** The audit events and studio records of one run, where the gateway keeps them in the database. */
function recordsOf(view, now) {
  const { tenant_id: tenant, run_id: runId, agent, session_id: sessionId } = view;
  const studio = { agent, status: view.status, turns: 1, tool_calls: 0, prompt: 'hello' };
  return [
    [
      'audit',
      [
        tenant,
        runId,
        now,
        JSON.stringify({ agent, session_id: sessionId, origin: 'rest', model: 'default' }),
        JSON.stringify({ agent, turns: 1, tool_calls: 0 }),
      ],
    ],
    ['loop', [tenant, runId, randomUUID(), now, JSON.stringify({ ...studio, run_id: runId })]],
    ['session', [tenant, sessionId, now, JSON.stringify({ ...studio, text: view.text })]],
  ];
}

/** The rows of one run: [statement name, params] in the order the gateway writes them. */
function rowsOf(view, conversation, usage, now) {
  const { tenant_id: tenant, run_id: runId } = view;
  const started = { ...view, status: 'running', text: '', finish_reason: null, turns: 0 };
  return [
    ['entry', [tenant, `run:${runId}`, 'record', JSON.stringify({ format: 2, ...view }), now]],
    ['entry', [tenant, `session:${view.session_id}`, 'conversation', conversation, now]],
    ['event', [tenant, runId, 1, 'run.started', JSON.stringify({ run: started }), now]],
    ['event', [tenant, runId, 2, 'run.progressed', '{"turns":1,"tool_calls":0}', now]],
    ['event', [tenant, runId, 3, 'run.settled', JSON.stringify({ run: view }), now]],
    [
      'usage',
      [
        tenant,
        new Date(now).toISOString().slice(0, 10),
        view.agent,
        'default',
        usage.prompt_tokens,
        usage.completion_tokens,
        now,
      ],
    ],
    ...(recordsInDatabase ? recordsOf(view, now) : []),
  ];
}

/** sqlite: better-sqlite3 in WAL with synchronous NORMAL (as the gateway), one transaction. */
async function sqliteWriter(path) {
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  const prepared = Object.fromEntries(
    Object.entries(STATEMENTS).map(([name, sql]) => [name, db.prepare(sql.replace(/\$\d+/g, '?'))]),
  );
  const write = db.transaction((rows) => {
    for (const [name, params] of rows) prepared[name].run(...params);
  });
  return async (rows) => write.immediate(rows);
}

/** PostgreSQL: node-postgres in pipeline mode, BEGIN, the rows and COMMIT in one socket write. */
async function postgresWriter(dsn) {
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({ connectionString: dsn, max: 10, pipeline: true });
  return async (rows) => {
    const client = await pool.connect();
    try {
      const { stream } = client.connection;
      stream.cork();
      const sent = [
        client.query('BEGIN'),
        ...rows.map(([name, params]) => client.query(STATEMENTS[name], params)),
        client.query('COMMIT'),
      ];
      stream.uncork();
      await Promise.all(sent);
    } finally {
      client.release();
    }
  };
}

const write =
  backend === 'postgres'
    ? await postgresWriter(process.env.FLOOR_DSN)
    : await sqliteWriter(process.env.FLOOR_SQLITE);

/** The model's answer, or the echo provider's: the prompt back, with estimated tokens. */
async function answer(prompt) {
  if (!modelUrl) {
    return { text: `echo: ${prompt}`, usage: { prompt_tokens: 2, completion_tokens: 3 } };
  }
  const { body } = await request(`${modelUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer floor' },
    body: JSON.stringify({ model: 'default', messages: [{ role: 'user', content: prompt }] }),
  });
  const completion = await body.json();
  return { text: completion.choices[0].message.content, usage: completion.usage };
}

class RunBody {}
for (const field of ['tenant_id', 'prompt']) IsString()(RunBody.prototype, field);
IsOptional()(RunBody.prototype, 'run_id');
IsString()(RunBody.prototype, 'run_id');

class FloorController {
  readyz() {
    return { status: 'ready' };
  }

  async run(authorization, body) {
    authorize(authorization);
    const startedAt = new Date().toISOString();
    const { text, usage } = await answer(body.prompt);
    const messages = [
      { role: 'user', content: body.prompt },
      { role: 'assistant', content: text },
    ];
    const view = {
      agent: 'default',
      run_id: body.run_id ?? randomUUID(),
      session_id: randomUUID(),
      tenant_id: body.tenant_id,
      status: 'completed',
      text,
      finish_reason: 'stop',
      turns: 1,
      tool_calls: 0,
      messages,
      started_at: startedAt,
      ended_at: new Date().toISOString(),
      usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
    };
    const conversation = JSON.stringify({
      messages,
      run: { id: view.run_id, turns: 1, tool_calls: 0, finish: 'stop', own: 2 },
    });
    await write(rowsOf(view, conversation, usage, Date.now()));
    return view;
  }
}
decorateMethod(FloorController, 'readyz', [Get('readyz')]);
decorateMethod(FloorController, 'run', [Post('v1/agent/run'), HttpCode(200)]);
decorateParams(FloorController, 'run', [
  [Headers('authorization'), String],
  [Body(createValidationPipe()), RunBody],
]);
await serveController(FloorController, Number(process.argv[2]));
