/**
 * Modules the gateway imports on first use rather than at start: a surface's heavy SDK (MCP,
 * A2A), what only one configuration uses (the OTLP exporters), what only the first request of a
 * route needs (the OpenAPI generator). Loading them at start would cost every replica start time
 * and memory for surfaces it may never serve.
 *
 * One import runs at a time, process-wide: those packages share dependencies, and jest's ESM
 * loader (vm modules) fails to link a module that two imports under way both load ("request for
 * … is not in cache"). Node itself does not care; waiting costs only the first calls.
 */
let importing: Promise<unknown> = Promise.resolve();

/** Runs `importer` once every import started before it has settled. */
export function importInTurn<T>(importer: () => Promise<T>): Promise<T> {
  const imported = importing.then(importer, importer);
  importing = imported.catch(() => undefined);
  return imported;
}

/** A module imported once, on the first `load()`. */
export class LazyModule<T> {
  private loading?: Promise<T>;
  private module?: T;

  constructor(
    private readonly name: string,
    private readonly importer: () => Promise<T>,
  ) {}

  /** The module, imported now if it was not yet. A failed import is tried again next time. */
  load(): Promise<T> {
    this.loading ??= importInTurn(this.importer).then(
      (module) => (this.module = module),
      (error: unknown) => {
        this.loading = undefined;
        throw error;
      },
    );
    return this.loading;
  }

  /** The module, for code that runs only after a `load()` (throws if none has finished). */
  get(): T {
    if (this.module === undefined) throw new Error(`${this.name} is used before it was loaded`);
    return this.module;
  }

  /** The module if it was loaded; undefined otherwise. */
  peek(): T | undefined {
    return this.module;
  }
}
