import { beforeAll, describe, expect, it } from '@jest/globals';
import { answersError, mcpContentBlocks, structuredResult } from './tool-answer.js';
import { mcpServerSdk } from './mcp-sdk.js';

const text = { type: 'text', text: 'ok' };

// Callers load the MCP SDK first (readyToRead; the MCP host loads it for itself).
beforeAll(() => mcpServerSdk.load());

describe('tool answers', () => {
  it('takes an answer for MCP content only when every block is MCP content', () => {
    expect(mcpContentBlocks({ content: [text] })).toEqual([text]);
    expect(mcpContentBlocks({ content: [] })).toBeNull();
    expect(mcpContentBlocks({ content: [text, { type: 'video' }] })).toBeNull();
    expect(mcpContentBlocks({ content: ['a', 'b'] })).toBeNull();
    expect(mcpContentBlocks([text])).toBeNull();
  });

  it("gives an MCP answer's structuredContent, or a plain object answer itself", () => {
    expect(structuredResult({ content: [text], structuredContent: { n: 1 } })).toEqual({ n: 1 });
    expect(structuredResult({ content: [text] })).toBeUndefined();
    expect(structuredResult({ content: ['a'], n: 1 })).toEqual({ content: ['a'], n: 1 });
    expect(structuredResult('text')).toBeUndefined();
    expect(structuredResult([1])).toBeUndefined();
  });

  it('reads isError of MCP answers only', () => {
    expect(answersError({ content: [text], isError: true })).toBe(true);
    expect(answersError({ content: [text] })).toBe(false);
    expect(answersError({ isError: true })).toBe(false);
  });
});
