import { describe, expect, it } from '@jest/globals';
import { toMcpTool } from './tool-listing.js';

const parameters = { type: 'object' as const, properties: { text: { type: 'string' } } };

describe('toMcpTool', () => {
  it('gives built-ins a title and annotations from their hints, HTTP tools none', () => {
    const hints = {
      title: 'Echo',
      readOnly: true,
      destructive: false,
      idempotent: true,
      openWorld: false,
    };
    const builtin = toMcpTool({ name: 'echo', description: 'd', parameters, builtin: true, hints });
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

  it('says whether a tool that changes things is destructive', () => {
    const hints = {
      title: 'Delete',
      readOnly: false,
      destructive: true,
      idempotent: true,
      openWorld: false,
    };
    const tool = toMcpTool({ name: 'd', description: 'd', parameters, builtin: true, hints });
    expect(tool.annotations).toEqual({
      title: 'Delete',
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: false,
    });
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

  it("lists an HTTP tool's registered title, annotations, icons and output schema as given", () => {
    const presentation = {
      title: 'Order total',
      annotations: { readOnlyHint: true, openWorldHint: false },
      icons: [{ src: 'https://example.com/t.png', sizes: ['48x48'], theme: 'dark' as const }],
      outputSchema: { type: 'object', properties: { total: { type: 'number' } } },
    };
    const tool = toMcpTool({
      name: 'orders.total',
      description: 'd',
      parameters,
      builtin: false,
      presentation,
    });
    expect(tool).toEqual({
      name: 'orders.total',
      title: 'Order total',
      description: 'd',
      inputSchema: parameters,
      outputSchema: presentation.outputSchema,
      annotations: presentation.annotations,
      icons: presentation.icons,
    });
  });

  it('turns boolean property schemas of an output schema into objects too', () => {
    const tool = toMcpTool({
      name: 'x',
      description: 'd',
      parameters,
      builtin: false,
      presentation: {
        outputSchema: { type: 'object', properties: { any: true, none: false } },
      },
    });
    expect(tool.outputSchema).toEqual({
      type: 'object',
      properties: { any: {}, none: { not: {} } },
    });
  });
});
