import { describe, expect, it } from '@jest/globals';
import { type UpstreamTool, exposeTools } from './upstream-names.js';

const tool = (name: string, extra: Partial<UpstreamTool> = {}): UpstreamTool => ({
  name,
  inputSchema: { type: 'object', properties: { x: { type: 'string' } } },
  ...extra,
});

describe('exposeTools', () => {
  it('puts the prefix in front of every name and keeps the schema and description', () => {
    const { exposed, omitted } = exposeTools(
      [tool('echo', { description: 'Echoes' }), tool('get-sum')],
      { prefix: 'ev_', allow: null },
      new Set(),
    );
    expect(exposed).toEqual([
      {
        name: 'ev_echo',
        tool: 'echo',
        description: 'Echoes',
        parameters: { type: 'object', properties: { x: { type: 'string' } } },
      },
      expect.objectContaining({ name: 'ev_get-sum', tool: 'get-sum', description: '' }),
    ]);
    expect(omitted).toEqual([]);
  });

  it('offers only the allowed tools and says which allowed ones the upstream lacks', () => {
    const { exposed, omitted } = exposeTools(
      [tool('a'), tool('b'), tool('c')],
      { prefix: '', allow: ['c', 'a', 'z'] },
      new Set(),
    );
    expect(exposed.map((t) => t.name)).toEqual(['a', 'c']);
    expect(omitted).toEqual([{ tool: 'z', reason: 'the upstream does not offer it' }]);
  });

  it('leaves out names that are taken, invalid with the prefix, or whose schema is unusable', () => {
    const taken = new Set(['p_echo']);
    const long = 'x'.repeat(127); // 129 characters with the prefix: one too many (SEP-986: 128)
    const { exposed, omitted } = exposeTools(
      [tool('echo'), tool(long), tool('array', { inputSchema: { type: 'array' } }), tool('ok')],
      { prefix: 'p_', allow: null },
      taken,
    );
    expect(exposed.map((t) => t.name)).toEqual(['p_ok']);
    expect(omitted).toEqual([
      { tool: 'array', reason: 'its input schema is not an object schema' },
      { tool: 'echo', reason: '"p_echo" is already a tool of this toolset' },
      { tool: long, reason: expect.stringContaining('is not a valid tool name') },
    ]);
    expect(taken.has('p_ok')).toBe(true);
  });

  it('stops at the room the toolset has left', () => {
    const { exposed, omitted } = exposeTools(
      [tool('a'), tool('b'), tool('c')],
      { prefix: 'p_', allow: null },
      new Set(),
      2,
    );
    expect(exposed.map((t) => t.name)).toEqual(['p_a', 'p_b']);
    expect(omitted).toEqual([{ tool: 'c', reason: 'the toolset already offers 128 tools' }]);
  });

  it("turns the upstream's title and annotations into hints, with MCP's defaults", () => {
    const [hinted, plain] = exposeTools(
      [tool('a', { title: 'A tool', annotations: { readOnlyHint: true } }), tool('b')],
      { prefix: '', allow: null },
      new Set(),
    ).exposed;
    expect(hinted.hints).toEqual({
      title: 'A tool',
      readOnly: true,
      destructive: true,
      idempotent: false,
      openWorld: true,
    });
    expect(plain.hints).toBeUndefined();
  });

  it('carries how the upstream presents a tool, held to the rules of registered tools', () => {
    const output = { type: 'object', properties: { n: { type: 'number' } } };
    const { exposed } = exposeTools(
      [
        tool('shown', {
          title: 'Shown',
          annotations: { readOnlyHint: true, title: 'Shown tool' },
          outputSchema: output,
          icons: [
            { src: 'https://example.com/i.png', mimeType: 'image/png', sizes: ['48x48'] },
            { src: 'http://10.0.0.1/internal.png' },
            { src: 'file:///etc/passwd' },
            { src: 'data:image/png;base64,iVBORw0KGgo=' },
          ],
        }),
        tool('array-out', { outputSchema: { type: 'array' } }),
        tool('plain'),
      ],
      { prefix: '', allow: null },
      new Set(),
    );
    const [arrayOut, plain, shown] = exposed;
    expect(shown.presentation).toEqual({
      title: 'Shown',
      annotations: { readOnlyHint: true, title: 'Shown tool' },
      icons: [
        { src: 'https://example.com/i.png', mimeType: 'image/png', sizes: ['48x48'] },
        { src: 'data:image/png;base64,iVBORw0KGgo=' },
      ],
      outputSchema: output,
    });
    // An output schema that is not an object schema is not one MCP can list.
    expect(arrayOut.presentation).toBeUndefined();
    expect(plain.presentation).toBeUndefined();
  });
});
