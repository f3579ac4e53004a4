import { Module, createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** What a CommonJS module's `module.exports` is: a plain object, or a function with members. */
export type ExportsKind = 'object' | 'function';

/**
 * CommonJS modules that packages of the gateway require as they load, for features `svc` never
 * uses: nest-commander's prompts (`inquirer`, with lodash and the rest under it: about 210 files,
 * the largest single cost of a start after the framework itself) and class-validator's phone
 * number check (`libphonenumber-js/max`, 73 files with its metadata). Each is named by the
 * package that requires it, so it resolves to the file that package would load.
 */
export const UNUSED_AT_START: ReadonlyArray<{
  module: string;
  requiredBy: string;
  exports: ExportsKind;
}> = [
  { module: 'inquirer', requiredBy: 'nest-commander', exports: 'object' },
  { module: 'libphonenumber-js/max', requiredBy: 'class-validator', exports: 'function' },
];

/**
 * Gives each of UNUSED_AT_START a stand-in in the require cache, before the packages that require
 * it load (main.ts): the real module loads the first time a member of it is read. One that does
 * not resolve (a dependency changed) is left to load as before.
 */
export function deferUnusedModules(): void {
  for (const { module, requiredBy, exports } of UNUSED_AT_START) {
    let file: string;
    try {
      file = createRequire(require.resolve(requiredBy)).resolve(module);
    } catch {
      continue;
    }
    deferModule(file, exports);
  }
}

/**
 * What a stand-in answers before the module loads (besides its `constructor`, Object or
 * Function): what it is read for while nothing uses it. It reads as an ES module namespace, so
 * TypeScript's `__importStar` keeps it as it is instead of copying (and so loading) every member.
 * The rest is what the real modules answer too (the spec checks): inquirer is the value of a Nest
 * provider, whose `constructor` Nest reads, as it looks for lifecycle hooks on it; whoever
 * resolves a promise with it looks for a `then`.
 */
export const BEFORE_LOADING: ReadonlyMap<PropertyKey, unknown> = new Map<PropertyKey, unknown>([
  ['__esModule', true],
  ['then', undefined],
  ...[
    'onModuleInit',
    'onApplicationBootstrap',
    'onModuleDestroy',
    'beforeApplicationShutdown',
    'onApplicationShutdown',
  ].map((hook): [string, undefined] => [hook, undefined]),
]);

type Exports = Record<PropertyKey, unknown> & ((...args: unknown[]) => unknown);

/**
 * Puts a stand-in for the CommonJS module at `file`, whose exports are of kind `exports`, in the
 * require cache: reading any member but BEFORE_LOADING's (or calling it) loads the real module,
 * which then replaces the stand-in in the cache.
 */
export function deferModule(file: string, exports: ExportsKind = 'object'): void {
  let real: Exports | undefined;
  const load = (): Exports => {
    if (real === undefined) {
      delete require.cache[file];
      real = require(file) as Exports;
    }
    return real;
  };
  // An arrow function has no `prototype`, which a proxy would have to report as the target's.
  const target = exports === 'function' ? () => undefined : {};
  const standIn = new Proxy(target, {
    get: (_target, key) => {
      if (real !== undefined) return real[key];
      if (key === 'constructor') return target.constructor;
      return BEFORE_LOADING.has(key) ? BEFORE_LOADING.get(key) : load()[key];
    },
    apply: (_target, self, args: unknown[]) => Reflect.apply(load(), self, args),
    has: (_target, key) => key in load(),
    ownKeys: () => Reflect.ownKeys(load()),
    getOwnPropertyDescriptor: (_target, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(load(), key);
      return descriptor && { ...descriptor, configurable: true };
    },
  });
  const cached = new Module(file);
  cached.filename = file;
  cached.loaded = true;
  cached.exports = standIn;
  require.cache[file] = cached;
}
