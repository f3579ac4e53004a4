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

  it("puts a request carrying the gateway's own User-Agent inside a run", () => {
    expect(asRequest('svc-gateway', runDepth)).toBe(1);
    expect(asRequest('svc-gateway/0.1.0', tooDeepForRun)).toBe(true);
    expect(asRequest('curl/8.5.0', runDepth)).toBe(0);
    expect(asRequest(undefined, runDepth)).toBe(0);
    expect(insideRun(() => asRequest('svc-gateway', runDepth))).toBe(1);
  });
});
