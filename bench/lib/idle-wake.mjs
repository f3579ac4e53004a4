/**
 * What one idle wait costs the work after it on this machine: the same fixed work, one SQLite
 * write transaction (an upsert and an insert, committed in WAL mode with `synchronous = NORMAL`,
 * as the gateway commits) and a JSON round trip of a run-sized record, timed when it follows
 * work at once (a setImmediate: the loop never sleeps, as under load) and when it follows 1 ms
 * of sleep (a setTimeout: the process waits in epoll, as a server at one request in flight
 * waits for its next request and for its model's answer). The work is identical; only the
 * wait before it differs, so the ratio is what the machine does to a process that sleeps
 * (cold caches, a vCPU that halted), which every run at c=1 pays after each of its waits.
 * Run as a child process, prints one JSON line:
 *   node bench/lib/idle-wake.mjs <dir> [rounds]
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { median } from './stats.mjs';

const dir = process.argv[2];
const ROUNDS = Number(process.argv[3] ?? 6);
/** Iterations per block; blocks of the two kinds alternate so drift hits both alike. */
const BLOCK = 250;

const db = new Database(join(dir, 'idle-wake.sqlite'));
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.exec(`CREATE TABLE IF NOT EXISTS counts (k TEXT PRIMARY KEY, n INTEGER NOT NULL);
  CREATE TABLE IF NOT EXISTS rows (id TEXT PRIMARY KEY, value TEXT NOT NULL)`);
const upsert = db.prepare(
  'INSERT INTO counts (k, n) VALUES (?, 1) ON CONFLICT (k) DO UPDATE SET n = n + 1',
);
const insert = db.prepare('INSERT INTO rows (id, value) VALUES (?, ?)');
const write = db.transaction((id, value) => {
  upsert.run('runs');
  insert.run(id, value);
});

const record = {
  run_id: 'run-0',
  status: 'completed',
  text: 'hello from the mock model',
  messages: Array.from({ length: 6 }, (_, i) => ({
    role: i % 2 ? 'assistant' : 'user',
    content: `message ${i}`,
  })),
  usage: { prompt_tokens: 10, completion_tokens: 6 },
};

let n = 0;
/** The fixed work, timed: µs. */
function work() {
  const started = process.hrtime.bigint();
  const value = JSON.stringify({ ...JSON.parse(JSON.stringify(record)), run_id: `run-${n}` });
  write(`run-${n++}`, value);
  return Number(process.hrtime.bigint() - started) / 1e3;
}

const afterWork = [];
const afterSleep = [];
for (let i = 0; i < 2 * BLOCK; i++) {
  await new Promise((resolve) => setImmediate(resolve));
  work(); // warm both paths before anything is kept
}
for (let round = 0; round < ROUNDS; round++) {
  for (let i = 0; i < BLOCK; i++) {
    await new Promise((resolve) => setImmediate(resolve));
    afterWork.push(work());
  }
  for (let i = 0; i < BLOCK; i++) {
    await sleep(1);
    afterSleep.push(work());
  }
}
db.close();
const busyUs = median(afterWork);
const idleUs = median(afterSleep);
process.stdout.write(
  `${JSON.stringify({ busyUs, idleUs, ratio: idleUs / busyUs, samples: afterWork.length })}\n`,
);
