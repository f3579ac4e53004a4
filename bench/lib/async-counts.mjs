/**
 * Preloaded into a gateway by the `counts` part (`node --import`): counts the async resources
 * the process creates (promises, timers, immediates, next-tick callbacks, …) by type, between
 * two SIGUSR2 signals, and writes them as JSON to BENCH_COUNTS_OUT at the second. Counts do not
 * move with the machine's load, where CPU times do.
 */
import { createHook } from 'node:async_hooks';
import { writeFileSync } from 'node:fs';

let counting = false;
let counts = {};
createHook({
  init(_id, type) {
    if (counting) counts[type] = (counts[type] ?? 0) + 1;
  },
}).enable();

process.on('SIGUSR2', () => {
  if (!counting) {
    counts = {};
    counting = true;
    return;
  }
  counting = false;
  writeFileSync(process.env.BENCH_COUNTS_OUT, JSON.stringify(counts));
});
