import { describe, expect, it } from '@jest/globals';
import { toMcpTool } from './tool-listing.js';

const parameters = { type: 'object' as const, properties: { text: { type: 'string' } } };

describe('toMcpTool', () => {
  it('gives built-ins a title and annotations, HTTP tools of the same name none', () => {
    const builtin = toMcpTool({ name: 'echo', description: 'd', parameters, builtin: true });
    expect(builtin).toEqual({
      name: 'echo',
      title: 'Echo',
      description: 'd',
      inputSchema: parameters,
      annotations: {
        title: 'Echo',
        readOnlyHint: true,
        idempotentHint: true,
        openWorldHint: false,
      },
    });
    const http = toMcpTool({ name: 'echo', description: 'd', parameters, builtin: false });
    expect(http).toEqual({ name: 'echo', description: 'd', inputSchema: parameters });
  });

  it('turns boolean property schemas into objects, as MCP requires', () => {
    const tool = toMcpTool({
      name: 'x',
      description: 'd',
      parameters: { type: 'object', properties: { any: true, none: false }, required: ['any'] },
      builtin: false,
    });
    expect(tool.inputSchema).toEqual({
      type: 'object',
      properties: { any: {}, none: { not: {} } },
      required: ['any'],
    });
  });
});
