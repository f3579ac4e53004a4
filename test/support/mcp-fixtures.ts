import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { createGatewayApp } from '../../src/app/create-app.js';
import { loadConfig } from '../../src/platform/config/load-config.js';
import { type RunningGateway, tempBoardDb } from './gateway.js';
import { sha256Hex, writeKeysFile } from './keys-file.js';

export const ROOT_KEY = 'mcp-test-root-key';
/** Unbound: may name any tenant (X-Tenant-Id). */
export const RUNNER_KEY = 'mcp-any-tenant-runner-key';
export const KEY_A = 'mcp-tenant-a-runner-key';
export const KEY_B = 'mcp-tenant-b-runner-key';
/** Bound to tenant a but without `tools:call`. */
export const VIEWER_KEY = 'mcp-tenant-a-viewer-key';

/** SVC_KEYS_FILE with the keys above. */
export function writeMcpKeysFile(): string {
  return writeKeysFile({
    keys: [
      { id: 'any-run', key_sha256: sha256Hex(RUNNER_KEY), roles: ['runner'] },
      { id: 'a-run', key_sha256: sha256Hex(KEY_A), tenant_id: 'a', roles: ['runner'] },
      { id: 'b-run', key_sha256: sha256Hex(KEY_B), tenant_id: 'b', roles: ['runner'] },
      { id: 'a-view', key: VIEWER_KEY, tenant_id: 'a', roles: ['viewer'] },
    ],
  });
}

export const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

/** Registers an HTTP tool through the REST surface (200 expected). */
export async function registerTool(
  gatewayUrl: string,
  target: { tenant: string; toolset: string; name: string; url: string },
): Promise<void> {
  await request(gatewayUrl)
    .put(`/v1/toolsets/${target.toolset}/tools/${target.name}`)
    .set(bearer(ROOT_KEY))
    .send({
      tenant_id: target.tenant,
      description: `calls ${target.url}`,
      parameters: { type: 'object', properties: { order: { type: 'string' } } },
      endpoint: { url: target.url },
    })
    .expect(200);
}

/**
 * The composed gateway with its MCP host mounted at `mcpPath` instead of `/mcp` (a standalone
 * host at a path of its choosing), on an ephemeral loopback port.
 */
export async function startGatewayWithMcpAt(
  env: Record<string, string>,
  mcpPath: string,
): Promise<RunningGateway> {
  const app = await createGatewayApp(
    loadConfig({ SVC_LOG_LEVEL: 'silent', SVC_BOARD_DB: tempBoardDb(), ...env }),
    { mcpPath },
  );
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  return { app, url: `http://127.0.0.1:${port}`, close: () => app.close() };
}
