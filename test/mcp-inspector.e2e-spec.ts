import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { BACKENDS, type BackendFixture, createBackend } from './support/backends.js';
import { type RunningGateway, startGateway } from './support/gateway.js';
import { inspectorCli } from './support/inspector.js';
import { KEY_A, ROOT_KEY, writeMcpKeysFile } from './support/mcp-fixtures.js';

/** The README's Inspector command, in both protocol eras, against a gateway with keys. */
describe.each(BACKENDS)('MCP Inspector CLI against the gateway (%s)', (backend) => {
  let fixture: BackendFixture;
  let gateway: RunningGateway;
  let mcpUrl: string;

  beforeAll(async () => {
    fixture = await createBackend(backend);
    gateway = await startGateway({
      ...fixture.env,
      SVC_API_KEY: ROOT_KEY,
      SVC_KEYS_FILE: writeMcpKeysFile(),
    });
    mcpUrl = `${gateway.url}/mcp/`;
  }, 120_000);
  afterAll(async () => {
    await gateway?.close();
    await fixture?.cleanup();
  });

  const tenantKey = ['--header', `Authorization: Bearer ${KEY_A}`];

  it.each(['modern', 'legacy'])(
    'calls a tool over the %s era',
    async (era) => {
      const result = await inspectorCli(mcpUrl, [
        '--protocol-era',
        era,
        ...tenantKey,
        '--method',
        'tools/call',
        '--tool-name',
        'calculator',
        '--tool-arg',
        'expression=6*7',
      ]);
      expect(result).toMatchObject({ code: 0 });
      const answer = JSON.parse(result.stdout) as { content: unknown[]; isError: boolean };
      expect(answer).toMatchObject({ content: [{ type: 'text', text: '42' }], isError: false });
    },
    120_000,
  );

  it('lists the resource templates and tools of the key tenant (root key, X-Tenant-Id)', async () => {
    const templates = await inspectorCli(mcpUrl, [
      '--protocol-era',
      'modern',
      '--header',
      `Authorization: Bearer ${ROOT_KEY}`,
      '--header',
      'X-Tenant-Id: acme',
      '--method',
      'resources/templates/list',
    ]);
    expect(templates.code).toBe(0);
    const listed = JSON.parse(templates.stdout) as {
      resourceTemplates: Array<{ uriTemplate: string }>;
    };
    expect(listed.resourceTemplates.map((template) => template.uriTemplate)).toEqual(
      expect.arrayContaining(['svc://board/cards/{card_id}', 'svc://runs/{run_id}']),
    );
  }, 120_000);

  it('fails with the gateway refusal when the key is wrong', async () => {
    const result = await inspectorCli(mcpUrl, [
      '--protocol-era',
      'modern',
      '--header',
      'Authorization: Bearer not-a-key-of-this-gateway',
      '--method',
      'tools/list',
    ]);
    expect(result.code).not.toBe(0);
    expect(`${result.stdout}${result.stderr}`).toMatch(/401|Unauthorized|auth_required/i);
  }, 120_000);
});
