import { createRequire } from 'node:module';
import { BEFORE_LOADING, UNUSED_AT_START } from './deferred-modules.js';

// The stand-ins themselves are exercised in a real process (test/deferred-modules.e2e-spec.ts):
// jest's require has a cache of its own.
const require = createRequire(import.meta.url);

describe.each(UNUSED_AT_START)('the stand-in of $module', ({ module, requiredBy, exports }) => {
  const real = () =>
    createRequire(require.resolve(requiredBy))(module) as Record<PropertyKey, unknown>;

  it(`resolves where ${requiredBy} finds it (a dependency that moved shows here)`, () => {
    expect(createRequire(require.resolve(requiredBy)).resolve(module)).toMatch(/node_modules/);
  });

  it(`exports ${exports === 'object' ? 'an object' : 'a function'} and answers before loading what the real module answers`, () => {
    const loaded = real();
    expect(typeof loaded).toBe(exports);
    // jest's realm has an Object and a Function of its own
    expect(loaded.constructor.name).toBe(exports === 'object' ? 'Object' : 'Function');
    for (const [key, answer] of BEFORE_LOADING) {
      if (key !== '__esModule') expect([key, loaded[key]]).toEqual([key, answer]);
    }
  });
});
