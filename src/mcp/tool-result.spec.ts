import { beforeAll, describe, expect, it } from '@jest/globals';
import type { JsonValue } from '../platform/state/state-store.js';
import { toCallToolResult } from './tool-result.js';
import { mcpServerSdk } from '../tools/mcp-sdk.js';

// The MCP host loads the SDK before anything here runs (tools/mcp-sdk.ts).
beforeAll(() => mcpServerSdk.load());

describe('toCallToolResult', () => {
  it('turns a string into text as is and anything else into JSON text', () => {
    expect(toCallToolResult('hi', false)).toEqual({
      content: [{ type: 'text', text: 'hi' }],
      isError: false,
    });
    expect(toCallToolResult(14, false)).toEqual({
      content: [{ type: 'text', text: '14' }],
      isError: false,
    });
    expect(toCallToolResult(null, true)).toEqual({
      content: [{ type: 'text', text: 'null' }],
      isError: true,
    });
    expect(toCallToolResult([1, 2], false).content).toEqual([{ type: 'text', text: '[1,2]' }]);
  });

  it('adds an object result as structuredContent', () => {
    expect(toCallToolResult({ a: 1 }, false)).toEqual({
      content: [{ type: 'text', text: '{"a":1}' }],
      structuredContent: { a: 1 },
      isError: false,
    });
  });

  it('passes MCP content blocks through, with structuredContent and isError', () => {
    const audio = { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' };
    const link = { type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt' };
    expect(
      toCallToolResult(
        { content: [audio, link], structuredContent: { n: 1 }, isError: true },
        false,
      ),
    ).toEqual({ content: [audio, link], structuredContent: { n: 1 }, isError: true });
  });

  it('falls back to text when any block is not MCP content', () => {
    const result: JsonValue = {
      content: [
        { type: 'text', text: 'ok' },
        { type: 'video', url: 'x' },
      ],
    };
    expect(toCallToolResult(result, false).content).toEqual([
      { type: 'text', text: JSON.stringify(result) },
    ]);
    expect(toCallToolResult({ content: [] }, false).content).toEqual([
      { type: 'text', text: '{"content":[]}' },
    ]);
  });

  it("passes an MCP-shaped answer's own _meta through, without the protocol's keys", () => {
    const result = toCallToolResult(
      {
        content: [{ type: 'text', text: 'ok' }],
        _meta: { 'example.com/trace': 'abc', 'io.modelcontextprotocol/related-task': 'x' },
      },
      false,
    );
    expect(result._meta).toEqual({ 'example.com/trace': 'abc' });
    const onlyReserved = toCallToolResult(
      { content: [{ type: 'text', text: 'ok' }], _meta: { 'dev.mcp/x': 1 } },
      false,
    );
    expect(onlyReserved).not.toHaveProperty('_meta');
  });

  it('keeps a _meta member of a plain object answer inside it (only MCP-shaped answers carry one)', () => {
    const result = toCallToolResult({ total: 3, _meta: { a: 1 } }, false);
    expect(result).not.toHaveProperty('_meta');
    expect(result.structuredContent).toEqual({ total: 3, _meta: { a: 1 } });
  });
});
