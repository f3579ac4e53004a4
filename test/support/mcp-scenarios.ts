import { afterAll, beforeAll } from '@jest/globals';
import { type McpConnection, type McpEra, connectMcp } from './mcp-client.js';
import { RUNNER_KEY, bearer, registerTool } from './mcp-fixtures.js';
import { mcpTenantScenarios } from './mcp-tenant-scenarios.js';
import { type McpToolEndpoint, startMcpToolEndpoint } from './mcp-tool-endpoint.js';
import { mcpToolScenarios } from './mcp-tool-scenarios.js';
import type { SuiteGateway } from './suite.js';

/** What the scenarios share: the gateway, the tool endpoint, and connections closed at the end. */
export interface McpScenarioContext {
  gateway: SuiteGateway;
  endpointUrl(): string;
  /** An SDK client on `path` (default `/mcp/`) with `headers`. */
  connect(headers: Record<string, string>, path?: string): Promise<McpConnection>;
  /** An unbound key naming tenant a by X-Tenant-Id. */
  asTenantA(): Promise<McpConnection>;
}

/**
 * What the SDK's own client sees through `/mcp/`, in either mode and either protocol era (v1
 * client over 2025-11-25, v2 client over 2026-07-28). Tenant a has HTTP tools in
 * `default` (`lookup`, `rich`, `refuses`, `broken`) and `deploy` in toolset `ops`; tenant b
 * only the built-ins.
 */
export function mcpScenarios(gateway: SuiteGateway, era: McpEra = 'legacy'): void {
  let endpoint: McpToolEndpoint | undefined;
  const open: McpConnection[] = [];
  const context: McpScenarioContext = {
    gateway,
    endpointUrl: () => endpoint?.url ?? '',
    async connect(headers, path = '/mcp/') {
      const mcp = await connectMcp(`${gateway.url}${path}`, headers, era);
      open.push(mcp);
      return mcp;
    },
    asTenantA: () => context.connect({ ...bearer(RUNNER_KEY), 'X-Tenant-Id': 'a' }),
  };

  beforeAll(async () => {
    endpoint = await startMcpToolEndpoint();
    const tools = { lookup: '/echo', rich: '/content', refuses: '/is-error', broken: '/fail' };
    for (const [name, route] of Object.entries(tools)) {
      const url = `${endpoint.url}${route}`;
      await registerTool(gateway.url, { tenant: 'a', toolset: 'default', name, url });
    }
    const url = `${endpoint.url}/echo`;
    await registerTool(gateway.url, { tenant: 'a', toolset: 'ops', name: 'deploy', url });
  });
  afterAll(async () => {
    await Promise.all(open.map((mcp) => mcp.close()));
    await endpoint?.close();
  });

  mcpToolScenarios(context);
  mcpTenantScenarios(context);
}
