import { describe, expect, it } from '@jest/globals';
import { MAX_RESULT_META_BYTES, isReservedMetaKey, toolResultMeta } from './result-meta.js';

describe('isReservedMetaKey', () => {
  it('reserves the prefixes of both rules (2025-11-25: second label; 2025-06-18: any but last)', () => {
    for (const key of [
      'io.modelcontextprotocol/related-task',
      'dev.mcp/x',
      'modelcontextprotocol.io/x',
      'mcp.dev/x',
      'api.modelcontextprotocol.org/x',
      'tools.mcp.com/x',
      'IO.ModelContextProtocol/x',
    ]) {
      expect([key, isReservedMetaKey(key)]).toEqual([key, true]);
    }
  });

  it("leaves the tool's own keys: no prefix, or mcp only as the last of three or more labels", () => {
    for (const key of ['trace', 'example.com/trace', 'com.example.mcp/x', 'mcp/x', 'mcpx.dev/x']) {
      expect([key, isReservedMetaKey(key)]).toEqual([key, false]);
    }
  });
});

describe('toolResultMeta', () => {
  it('keeps the own keys of an object and drops the reserved ones', () => {
    expect(
      toolResultMeta({
        'example.com/trace': 'abc',
        'io.modelcontextprotocol/related-task': { taskId: 'spoofed' },
        'tools.mcp.com/x': 1,
      }),
    ).toEqual({ 'example.com/trace': 'abc' });
  });

  it('gives nothing for a non-object, an empty object, or only reserved keys', () => {
    expect(toolResultMeta(undefined)).toBeUndefined();
    expect(toolResultMeta(['a'])).toBeUndefined();
    expect(toolResultMeta('x')).toBeUndefined();
    expect(toolResultMeta({})).toBeUndefined();
    expect(toolResultMeta({ 'dev.mcp/x': 1 })).toBeUndefined();
  });

  it('drops a _meta larger than the bound whole, and keeps one just within it', () => {
    const fits = { note: 'x'.repeat(MAX_RESULT_META_BYTES - '{"note":""}'.length) };
    expect(toolResultMeta(fits)).toEqual(fits);
    expect(toolResultMeta({ note: `${fits.note}x` })).toBeUndefined();
  });
});
