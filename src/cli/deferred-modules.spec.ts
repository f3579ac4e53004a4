import { createRequire } from 'node:module';
import { BEFORE_LOADING, UNUSED_AT_START } from './deferred-modules.js';

// The stand-ins themselves are exercised in a real process (test/deferred-modules.e2e-spec.ts):
// jest's require has a cache of its own.
const require = createRequire(import.meta.url);

describe.each(UNUSED_AT_START)('the stand-in of $module', ({ module, requiredBy }) => {
  const real = () =>
    createRequire(require.resolve(requiredBy))(module) as Record<PropertyKey, unknown>;

  it(`resolves where ${requiredBy} finds it (a dependency that moved shows here)`, () => {
    expect(createRequire(require.resolve(requiredBy)).resolve(module)).toMatch(/node_modules/);
  });

  it('answers before loading what the real module answers', () => {
    const exports = real();
    expect(exports.constructor.name).toBe('Object'); // jest's realm has an Object of its own
    for (const [key, answer] of BEFORE_LOADING) {
      if (key !== '__esModule' && key !== 'constructor') {
        expect([key, exports[key]]).toEqual([key, answer]);
      }
    }
  });
});
