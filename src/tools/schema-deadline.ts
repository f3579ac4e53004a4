import vm from 'node:vm';

/** The work did not finish within its deadline and was stopped. */
export class DeadlineExceeded extends Error {
  constructor(readonly ms: number) {
    super(`stopped after ${ms} ms`);
    this.name = 'DeadlineExceeded';
  }
}

// One empty context and one script for every call: the script only calls back into this realm.
const context = vm.createContext(Object.create(null) as object);
const script = new vm.Script('work()', { filename: 'schema-deadline' });

/**
 * Runs synchronous `work` and stops it after `ms` milliseconds of wall time, wherever it is
 * (ajv's generated code, a regular expression, a loop). Node's vm watchdog terminates the
 * execution; `finally` blocks inside `work` do not run then, so whatever `work` had under way
 * must be thrown away by the caller. A watchdog thread per call costs a few hundred
 * microseconds, so this is for work that is already known to be large.
 */
export function withDeadline<T>(ms: number, work: () => T): T {
  let result: T | undefined;
  (context as { work?: () => void }).work = () => {
    result = work();
  };
  try {
    script.runInContext(context, { timeout: ms });
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') {
      throw new DeadlineExceeded(ms);
    }
    throw error;
  } finally {
    delete (context as { work?: () => void }).work;
  }
  return result as T;
}
