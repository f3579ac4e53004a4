import { expect, it } from '@jest/globals';
import { rpcError } from './mcp-client.js';
import type { McpScenarioContext } from './mcp-scenarios.js';
import { MCP_CONTENT } from './mcp-tool-endpoint.js';

/**
 * Listing and calling: the tenant's toolset with titles and annotations, calls through the one
 * tool execution path, tool failures and schema-invalid arguments as `isError` results, other caller mistakes as -32602, progress.
 */
export function mcpToolScenarios({ asTenantA, endpointUrl }: McpScenarioContext): void {
  it('lists the tenant toolset with schemas, titles and annotations', async () => {
    const mcp = await asTenantA();
    expect(mcp.client.getServerVersion()).toMatchObject({ name: 'svc-gateway' });
    expect(mcp.client.getServerCapabilities()).toMatchObject({ tools: {} });
    const { tools } = await mcp.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      'echo',
      'current_time',
      'calculator',
      'broken',
      'lookup',
      'refuses',
      'rich',
    ]);
    expect(tools[2]).toMatchObject({
      name: 'calculator',
      title: 'Calculator',
      inputSchema: { type: 'object', required: ['expression'] },
      annotations: { readOnlyHint: true, openWorldHint: false },
    });
    expect(tools[4]).toEqual({
      name: 'lookup',
      description: `calls ${endpointUrl()}/echo`,
      inputSchema: { type: 'object', properties: { order: { type: 'string' } } },
    });
  });

  it('calls built-in and HTTP tools; MCP content from an endpoint passes through', async () => {
    const mcp = await asTenantA();
    const sum = await mcp.client.callTool({
      name: 'calculator',
      arguments: { expression: '2*(3+4)' },
    });
    expect(sum).toEqual({ content: [{ type: 'text', text: '14' }], isError: false });
    const looked = await mcp.client.callTool({ name: 'lookup', arguments: { order: 'A-17' } });
    expect(looked).toEqual({
      content: [{ type: 'text', text: '{"received":{"order":"A-17"}}' }],
      structuredContent: { received: { order: 'A-17' } },
      isError: false,
    });
    expect(await mcp.client.callTool({ name: 'rich', arguments: {} })).toEqual({
      ...MCP_CONTENT,
      isError: false,
    });
  });

  it('answers tool failures and invalid arguments as isError results, unknown tools as -32602', async () => {
    const mcp = await asTenantA();
    const byZero = await mcp.client.callTool({
      name: 'calculator',
      arguments: { expression: '1/0' },
    });
    expect(byZero).toEqual({
      content: [{ type: 'text', text: 'division by zero' }],
      isError: true,
    });
    const refused = await mcp.client.callTool({ name: 'refuses', arguments: {} });
    expect(refused).toMatchObject({
      isError: true,
      structuredContent: { message: 'no such order' },
    });
    const broken = await mcp.client.callTool({ name: 'broken', arguments: {} });
    expect(broken).toEqual({
      content: [{ type: 'text', text: 'tool endpoint unreachable' }],
      isError: true,
    });
    const unknown = await rpcError(mcp.client.callTool({ name: 'nope', arguments: {} }));
    expect(unknown).toMatchObject({ code: -32602, data: { status: 404 } });
    // SEP-1303: arguments that fail the schema are a result the model can read and correct.
    const invalid = await mcp.client.callTool({ name: 'calculator', arguments: { x: 1 } });
    expect(invalid.isError).toBe(true);
    expect(JSON.stringify(invalid.content)).toContain('expression: is required');
  });

  it('sends progress notifications when the client asks for them', async () => {
    const mcp = await asTenantA();
    const progress: number[] = [];
    const result = await mcp.client.callTool(
      { name: 'lookup', arguments: { order: 'B-2' } },
      { onprogress: (event) => progress.push(event.progress) },
    );
    expect(result.isError).toBe(false);
    expect(progress).toEqual([0, 1]);
  });
}
