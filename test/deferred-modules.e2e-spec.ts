import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BUILT = fileURLToPath(new URL('../dist/src/cli/deferred-modules.js', import.meta.url));

/**
 * Runs `body` in a fresh node process (jest's require has a cache of its own), with `deferModule`
 * from the build applied to `file`, a CommonJS module (exporting an object, or a function) that
 * counts its loads in `loads()`; returns what the body put in `out`.
 */
function inProcess(body: string, exportsKind: 'object' | 'function' = 'object'): unknown {
  const dir = mkdtempSync(join(tmpdir(), 'deferred-'));
  const file = join(dir, 'counted.cjs');
  writeFileSync(
    file,
    `globalThis.loads = (globalThis.loads ?? 0) + 1;
     ${exportsKind === 'function' ? "module.exports = exports = (name) => 'called ' + name;" : ''}
     exports.greet = (name) => 'hello ' + name;
     exports.answer = 42;`,
  );
  const script = `
    import { createRequire } from 'node:module';
    import { deferModule } from ${JSON.stringify(BUILT)};
    const require = createRequire(import.meta.url);
    const file = ${JSON.stringify(file)};
    const loads = () => globalThis.loads ?? 0;
    // TypeScript's CommonJS "import * as" helper, as the compiled packages have it.
    const importStar = (mod) => {
      if (mod && mod.__esModule) return mod;
      const copy = { ...mod };
      copy.default = mod;
      return copy;
    };
    deferModule(file, ${JSON.stringify(exportsKind)});
    const out = {};
    ${body}
    console.log(JSON.stringify(out));`;
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
  });
  return JSON.parse(output);
}

describe('a deferred CommonJS module (cli/deferred-modules)', () => {
  it('is not loaded by being required, kept, resolved with or given to Nest; it is at its first member', () => {
    const out = inProcess(`
      const kept = importStar(require(file));
      await Promise.resolve(kept);
      out.constructorIsObject = kept.constructor === Object;
      out.hook = typeof kept.onModuleInit;
      out.before = loads();
      out.greeting = kept.greet('svc');
      out.answer = kept.answer;
      out.after = loads();
      out.again = require(file).answer;
      out.cachedIsReal = require.cache[file].exports === require(file) && !('then' in require(file));
      out.finally = loads();`);
    expect(out).toEqual({
      constructorIsObject: true,
      hook: 'undefined',
      before: 0,
      greeting: 'hello svc',
      answer: 42,
      after: 1,
      again: 42,
      cachedIsReal: true,
      finally: 1,
    });
  });

  it('lists, copies and answers `in` from the real module', () => {
    const out = inProcess(`
      const standIn = require(file);
      out.has = 'answer' in standIn;
      out.keys = Object.keys(standIn).sort();
      out.copied = { ...standIn }.answer;
      out.loads = loads();`);
    expect(out).toEqual({ has: true, keys: ['answer', 'greet'], copied: 42, loads: 1 });
  });
  it('of a module that exports a function is called like it, loading it then', () => {
    const out = inProcess(
      `
      const fn = require(file);
      out.kind = typeof fn;
      out.constructorIsFunction = fn.constructor === Function;
      out.before = loads();
      out.called = fn('svc');
      out.member = fn.greet('svc');
      out.after = loads();`,
      'function',
    );
    expect(out).toEqual({
      kind: 'function',
      constructorIsFunction: true,
      before: 0,
      called: 'called svc',
      member: 'hello svc',
      after: 1,
    });
  });
});
