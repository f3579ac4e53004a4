import { describe, expect, it } from '@jest/globals';
import { asRequest, insideRun, runDepth, tooDeepForRun } from './run-lineage.js';

describe('run lineage', () => {
  it('is 0 outside runs and follows a run through awaits and timers', async () => {
    expect(runDepth()).toBe(0);
    expect(tooDeepForRun()).toBe(false);
    await insideRun(async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      expect(runDepth()).toBe(1);
      expect(tooDeepForRun()).toBe(true);
      await Promise.resolve().then(() => expect(insideRun(runDepth)).toBe(2));
    });
    expect(runDepth()).toBe(0);
  });

  it('puts a request this deployment made (its mark) inside a run, and no other', () => {
    expect(asRequest(true, runDepth)).toBe(1);
    expect(asRequest(true, tooDeepForRun)).toBe(true);
    expect(asRequest(false, runDepth)).toBe(0);
    expect(insideRun(() => asRequest(true, runDepth))).toBe(1);
  });
});
