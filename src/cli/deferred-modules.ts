import { Module, createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * CommonJS modules that packages of the gateway require as they load, for features `svc` never
 * uses: nest-commander's prompts (`inquirer`, with lodash and the rest under it: about 210 files,
 * the largest single cost of a start after the framework itself). Each is named by the package
 * that requires it, so it resolves to the file that package would load, and exports a plain
 * object (a stand-in cannot be called).
 */
export const UNUSED_AT_START: ReadonlyArray<{ module: string; requiredBy: string }> = [
  { module: 'inquirer', requiredBy: 'nest-commander' },
];

/**
 * Gives each of UNUSED_AT_START a stand-in in the require cache, before the packages that require
 * it load (main.ts): the real module loads the first time a member of it is read. One that does
 * not resolve (a dependency changed) is left to load as before.
 */
export function deferUnusedModules(): void {
  for (const { module, requiredBy } of UNUSED_AT_START) {
    let file: string;
    try {
      file = createRequire(require.resolve(requiredBy)).resolve(module);
    } catch {
      continue;
    }
    deferModule(file);
  }
}

/**
 * What a stand-in answers before the module loads: what it is read for while nothing uses it.
 * It reads as an ES module namespace, so TypeScript's `__importStar` keeps it as it is instead of
 * copying (and so loading) every member. The rest is what the real modules answer too (the spec
 * checks): inquirer is the value of a Nest provider, whose `constructor` Nest reads, as it looks
 * for lifecycle hooks on it; whoever resolves a promise with it looks for a `then`.
 */
export const BEFORE_LOADING: ReadonlyMap<PropertyKey, unknown> = new Map<PropertyKey, unknown>([
  ['__esModule', true],
  ['constructor', Object],
  ['then', undefined],
  ...[
    'onModuleInit',
    'onApplicationBootstrap',
    'onModuleDestroy',
    'beforeApplicationShutdown',
    'onApplicationShutdown',
  ].map((hook): [string, undefined] => [hook, undefined]),
]);

/**
 * Puts a stand-in for the CommonJS module at `file` (one that exports a plain object) in the
 * require cache: reading any member but BEFORE_LOADING's loads the real module, which then
 * replaces the stand-in in the cache.
 */
export function deferModule(file: string): void {
  let real: Record<PropertyKey, unknown> | undefined;
  const load = (): Record<PropertyKey, unknown> => {
    if (real === undefined) {
      delete require.cache[file];
      real = require(file) as Record<PropertyKey, unknown>;
    }
    return real;
  };
  const standIn = new Proxy(
    {},
    {
      get: (_target, key) =>
        real === undefined && BEFORE_LOADING.has(key) ? BEFORE_LOADING.get(key) : load()[key],
      has: (_target, key) => key in load(),
      ownKeys: () => Reflect.ownKeys(load()),
      getOwnPropertyDescriptor: (_target, key) => {
        const descriptor = Reflect.getOwnPropertyDescriptor(load(), key);
        return descriptor && { ...descriptor, configurable: true };
      },
    },
  );
  const cached = new Module(file);
  cached.filename = file;
  cached.loaded = true;
  cached.exports = standIn;
  require.cache[file] = cached;
}
