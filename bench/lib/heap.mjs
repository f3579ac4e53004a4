/** The live heap of this process: a full GC, then process.memoryUsage().heapUsed. */
import { setImmediate as tick } from 'node:timers/promises';
import v8 from 'node:v8';
import vm from 'node:vm';

/** global.gc, exposing it at run time when node was started without --expose-gc. */
export function collector() {
  if (typeof globalThis.gc === 'function') return globalThis.gc;
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc');
}

/** Heap used in MiB after three full collections (`gc` from collector()). */
export async function heapUsedMb(gc) {
  for (let i = 0; i < 3; i += 1) {
    gc();
    await tick(); // let closed sockets and finished requests release what they hold
  }
  return process.memoryUsage().heapUsed / 2 ** 20;
}
