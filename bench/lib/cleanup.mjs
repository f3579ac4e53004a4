/**
 * Cleanup registry: every resource the bench creates (child process, temp dir, database) registers
 * an async undo step here; they run in reverse order on normal exit, on error and on SIGINT/SIGTERM.
 */
const tasks = [];
let chain = Promise.resolve();
let stopping = false;

/** True once a signal or an uncaught error started the shutdown (later failures are its echo). */
export function isStopping() {
  return stopping;
}

/** Registers an undo step; returns a function that unregisters it (after a manual undo). */
export function onCleanup(task) {
  tasks.push(task);
  return () => {
    const index = tasks.indexOf(task);
    if (index >= 0) tasks.splice(index, 1);
  };
}

/**
 * Registers `task` and returns a function that runs it at most once and unregisters it, for
 * resources closed on the normal path but also needing the safety net.
 */
export function scoped(task) {
  let done;
  const run = () => (done ??= Promise.resolve().then(task));
  const unregister = onCleanup(run);
  return () => {
    unregister();
    return run();
  };
}

/** Runs every registered step once, newest first; a failing step does not stop the others. */
export function cleanupAll() {
  chain = chain.then(async () => {
    while (tasks.length > 0) {
      const task = tasks.pop();
      try {
        await task();
      } catch (error) {
        console.error(`bench: cleanup step failed: ${String(error)}`);
      }
    }
  });
  return chain;
}

/**
 * On SIGINT/SIGTERM (exit 128 + signal) and on an uncaught error (exit 1): clean up, then exit.
 */
export function cleanupOnSignals() {
  const stop = (why, code) => {
    stopping = true;
    console.error(`bench: ${why}, cleaning up`);
    void cleanupAll().finally(() => process.exit(code));
  };
  process.once('SIGINT', () => stop('SIGINT', 130));
  process.once('SIGTERM', () => stop('SIGTERM', 143));
  process.once('uncaughtException', (error) => stop(`uncaught ${error.stack ?? error}`, 1));
  process.once('unhandledRejection', (error) => stop(`unhandled ${error?.stack ?? error}`, 1));
}
