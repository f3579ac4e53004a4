import { describe, expect, it } from '@jest/globals';
import { capText, toolResultContent } from './tool-result-content.js';

describe('toolResultContent', () => {
  it('passes a short result through as text', () => {
    expect(toolResultContent({ a: 1 }, false, 1024)).toBe('{"a":1}');
    expect(toolResultContent('no such order', true, 1024)).toBe('error: no such order');
  });

  it('cuts a long result to the bound and says so', () => {
    const content = toolResultContent({ pad: 'x'.repeat(1024 * 1024) }, false, 4096);
    expect(Buffer.byteLength(content)).toBeLessThanOrEqual(4096);
    expect(content.startsWith('{"pad":"xxx')).toBe(true);
    expect(content).toMatch(
      /\[svc: tool result truncated: 1048586 bytes, only the first \d+ are shown\]$/,
    );
  });

  it('never splits a character', () => {
    for (let bound = 100; bound < 140; bound++) {
      const text = capText('é€😀'.repeat(200), bound);
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(bound);
      expect(text).not.toContain('\uFFFD');
    }
  });
});
