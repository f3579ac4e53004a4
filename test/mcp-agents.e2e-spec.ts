import { beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { StudioSnapshot } from '../src/studio/studio-records.js';
import { BACKENDS } from './support/backends.js';
import { writeKeysFile } from './support/keys-file.js';
import { connectMcp } from './support/mcp-client.js';
import { gatewayForSuite } from './support/suite.js';

const KEYS = { root: 'mcp-agents-root', runner: 'mcp-agents-runner', caller: 'mcp-agents-caller' };
const as = (key: string) => ({ Authorization: `Bearer ${key}` });
const TENANT = 'acme';

let keysFile: string;
beforeAll(() => {
  keysFile = writeKeysFile({
    keys: [
      { id: 'runner-1', key: KEYS.runner, tenant_id: TENANT, roles: ['runner'] },
      // May call tools, may not run agents.
      { id: 'caller-1', key: KEYS.caller, tenant_id: TENANT, roles: ['caller'] },
    ],
    roles: { caller: ['tools:call'] },
  });
});

describe.each(BACKENDS)('agents as MCP tools (%s)', (backend) => {
  const gateway = gatewayForSuite(backend, () => ({
    SVC_API_KEY: KEYS.root,
    SVC_KEYS_FILE: keysFile,
  }));
  const mcpAs = (key: string) =>
    connectMcp(`${gateway.url}/mcp/`, { ...as(key), 'X-Toolset': 'agents' });

  it('runs an agent from tools/call like POST /v1/agent/run, and the studio records it', async () => {
    const mcp = await mcpAs(KEYS.runner);
    try {
      const { tools } = await mcp.client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['run_agent']);
      const result = await mcp.client.callTool({
        name: 'run_agent',
        arguments: { prompt: 'hello from mcp', run_id: `${backend}-mcp-1` },
      });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({
        run_id: `${backend}-mcp-1`,
        agent: 'default',
        status: 'completed',
        text: 'hello from mcp',
        finish_reason: 'stop',
      });
    } finally {
      await mcp.close();
    }
    const run = await request(gateway.url)
      .get(`/v1/runs/${backend}-mcp-1?tenant_id=${TENANT}`)
      .set(as(KEYS.root))
      .expect(200);
    expect(run.body.status).toBe('completed');
    const studio = await request(gateway.url)
      .get(`/v1/studio?tenant_id=${TENANT}`)
      .set(as(KEYS.root))
      .expect(200);
    const snapshot = studio.body as StudioSnapshot;
    expect(snapshot.loops.find((loop) => loop.run_id === `${backend}-mcp-1`)).toMatchObject({
      status: 'completed',
      tenant_id: TENANT,
    });
  });

  it("needs the caller's own runs:write", async () => {
    const mcp = await mcpAs(KEYS.caller);
    try {
      const result = await mcp.client.callTool({
        name: 'run_agent',
        arguments: { prompt: 'may I?', run_id: `${backend}-mcp-refused` },
      });
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toContain('runs:write');
    } finally {
      await mcp.close();
    }
    await request(gateway.url)
      .get(`/v1/runs/${backend}-mcp-refused?tenant_id=${TENANT}`)
      .set(as(KEYS.root))
      .expect(404);
  });

  it('never lets an agent start agents', async () => {
    const res = await request(gateway.url)
      .post('/v1/agent/run')
      .set(as(KEYS.runner))
      .send({
        tenant_id: TENANT,
        toolset: 'agents',
        prompt: '/tool run_agent {"prompt":"and again","run_id":"nested-1"}',
      })
      .expect(200);
    expect(res.body.text).toContain('agents cannot start agents');
    await request(gateway.url)
      .get(`/v1/runs/nested-1?tenant_id=${TENANT}`)
      .set(as(KEYS.root))
      .expect(404);
  });
});
