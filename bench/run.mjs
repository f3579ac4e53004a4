/**
 * `npm run bench`: builds, then runs the HTTP and state benchmarks and prints a table of each plus
 * a JSON summary. See bench/README.md for what the figures mean and the BENCH_* settings.
 */
import 'reflect-metadata';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { httpBench } from './http.bench.mjs';
import { cleanupAll, cleanupOnSignals, isStopping, onCleanup } from './lib/cleanup.mjs';
import { benchOptions } from './lib/options.mjs';
import { httpReport, jsonSummary, stateReport, warnings } from './lib/report.mjs';
import { stateBench } from './state.bench.mjs';

cleanupOnSignals();
let exitCode = 0;
try {
  const options = benchOptions();
  const tmpDir = await mkdtemp(join(tmpdir(), 'svc-bench-'));
  onCleanup(() => rm(tmpDir, { recursive: true, force: true }));
  const started = Date.now();

  process.stderr.write('bench: HTTP (baseline, then gateway)...\n');
  const http = await httpBench(options.http, tmpDir);
  console.log(`\n${httpReport(http, options.http)}\n`);

  process.stderr.write(`bench: state backend (${options.state.backends.join(', ')})...\n`);
  const state = await stateBench(options.state, tmpDir);
  console.log(`${stateReport(state, options.state)}\n`);

  for (const warning of warnings(http)) console.log(warning);
  const seconds = (Date.now() - started) / 1000;
  console.log(`--- bench summary (JSON) ---\n${jsonSummary(options, { seconds, http, state })}`);
} catch (error) {
  if (!isStopping())
    console.error(`bench failed: ${error instanceof Error ? error.stack : String(error)}`);
  exitCode = 1;
} finally {
  await cleanupAll();
}
// Exit explicitly: a driver handle left open must not keep the runner alive.
process.exit(exitCode);
