import { expect, it } from '@jest/globals';
import request from 'supertest';
import { rpcError, toolNames as names } from './mcp-client.js';
import { KEY_A, KEY_B, RUNNER_KEY, bearer } from './mcp-fixtures.js';
import type { McpScenarioContext } from './mcp-scenarios.js';

/**
 * Tenant and toolset per request (CONTRACT 6): one `/mcp/` shows each tenant its own tools,
 * and a tenant-bound key cannot reach another tenant's.
 */
export function mcpTenantScenarios({ gateway, connect }: McpScenarioContext): void {
  it('selects the toolset by X-Toolset or ?toolset=', async () => {
    const byHeader = await connect({ ...bearer(KEY_A), 'X-Toolset': 'ops' });
    expect(await names(byHeader)).toEqual(['deploy']);
    const byQuery = await connect(bearer(KEY_A), '/mcp/?toolset=ops');
    expect(await names(byQuery)).toEqual(['deploy']);
    const missing = await connect({ ...bearer(KEY_A), 'X-Toolset': 'nowhere' });
    expect(await rpcError(missing.client.listTools())).toMatchObject({
      code: -32602,
      data: { status: 404 },
    });
  });

  it('shows each tenant only its own tools through the same /mcp/', async () => {
    const builtins = ['echo', 'current_time', 'calculator'];
    const otherByHeader = await connect({ ...bearer(RUNNER_KEY), 'X-Tenant-Id': 'b' });
    expect(await names(otherByHeader)).toEqual(builtins);
    const otherByQuery = await connect(bearer(RUNNER_KEY), '/mcp/?tenant_id=b');
    expect(await names(otherByQuery)).toEqual(builtins);
    const boundB = await connect(bearer(KEY_B));
    expect(await names(boundB)).toEqual(builtins);
    expect(await rpcError(boundB.client.callTool({ name: 'lookup', arguments: {} }))).toMatchObject(
      {
        code: -32602,
      },
    );
    const boundA = await connect(bearer(KEY_A));
    expect(await names(boundA)).toContain('lookup');
  });

  it('refuses a tenant-bound key naming another tenant (403), as on REST', async () => {
    for (const path of ['/mcp/', '/mcp/?tenant_id=a']) {
      const attempt = connect(
        { ...bearer(KEY_B), ...(path === '/mcp/' ? { 'X-Tenant-Id': 'a' } : {}) },
        path,
      );
      // The v2 client reads the 403's insufficient_scope challenge and says so; v1 the status.
      await expect(attempt).rejects.toThrow(/403|Insufficient scope/);
    }
    const raw = await request(gateway.url)
      .post('/mcp/')
      .set({ ...bearer(KEY_B), 'X-Tenant-Id': 'a', Accept: 'application/json, text/event-stream' })
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(raw.status).toBe(403);
    expect(raw.headers['www-authenticate']).toBe(
      'Bearer realm="svc", error="insufficient_scope", error_description="this key may only act for tenant \\"b\\""',
    );
    // One style on /mcp/: a JSON-RPC error body, the problem's type and status in its data.
    expect(raw.body).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32000,
        message: expect.stringMatching(/^Forbidden: .*tenant "b"/),
        data: { type: 'urn:svc:problem:forbidden', status: 403 },
      },
    });
  });
}
