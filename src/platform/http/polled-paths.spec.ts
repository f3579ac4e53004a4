import { describe, expect, it } from '@jest/globals';
import { isPolledPath } from './polled-paths.js';

describe('isPolledPath', () => {
  it('knows the probes, every surface health path and the metrics scrape', () => {
    for (const path of ['/healthz', '/readyz', '/health', '/mcp/health', '/metrics']) {
      expect({ path, polled: isPolledPath(path) }).toEqual({ path, polled: true });
    }
    expect(isPolledPath('/v1/messaging/webhook/health')).toBe(true);
  });

  it('leaves every other path to the log and the trace', () => {
    for (const path of [
      '/info',
      '/v1/agent/run',
      '/healthcheck',
      '/metrics/x',
      '/v1/health-report',
    ]) {
      expect({ path, polled: isPolledPath(path) }).toEqual({ path, polled: false });
    }
  });
});
