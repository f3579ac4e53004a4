import { type Context, context, createContextKey } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';

let registered = false;

/**
 * Makes OpenTelemetry's AsyncLocalStorage context manager the process's (once; idempotent).
 * Every value that follows the async context in the gateway (the active span, the request's
 * log fields, a run's lineage and journal, an MCP listen scope) rides in its one Context: on
 * Node 20 each enabled AsyncLocalStorage costs every promise a propagation and a property, so
 * one store instead of five is measurably cheaper per request. It is registered even while
 * tracing is off (OTEL_SDK_DISABLED), since the slots below depend on it.
 */
export function registerAmbientContext(): void {
  if (registered) return;
  registered = true;
  const manager = new AsyncLocalStorageContextManager();
  // False when another manager was registered first (a host process's SDK): the slots then
  // ride in that one, which serves as well as long as it follows async work.
  if (context.setGlobalContextManager(manager)) manager.enable();
}

/**
 * One value carried by the async context: `run` makes it the value for everything `work`
 * does and awaits, `get` reads the value of the code running now. Making a slot registers the
 * context manager, so a slot works in any process that loads it.
 */
export class AmbientSlot<T> {
  private readonly key: symbol;

  constructor(description: string) {
    this.key = createContextKey(description);
    registerAmbientContext();
  }

  get(): T | undefined {
    return context.active().getValue(this.key) as T | undefined;
  }

  run<R>(value: T, work: () => R): R {
    return context.with(this.in(context.active(), value), work);
  }

  /** `base` with this slot set to `value` (to enter together with other values). */
  in(base: Context, value: T): Context {
    return base.setValue(this.key, value);
  }
}
