/**
 * Heap used by an in-process gateway across many MCP tool calls: the gateway from dist/ runs in
 * this process, autocannon drives it in steps, and after each step a full GC runs before
 * process.memoryUsage().heapUsed is read. Only the heap figures come from here; throughput is
 * measured against child processes.
 */
import 'reflect-metadata';
import autocannon from 'autocannon';
import { createGatewayApp } from '../../dist/src/app/create-app.js';
import { loadConfig } from '../../dist/src/platform/config/load-config.js';
import { collector, heapUsedMb } from './heap.mjs';
import { modernRequest, sessionRequest, statelessRequest } from './mcp-requests.mjs';
import { expectToolResult, openSession } from './mcp-session.mjs';
import { gatewayEnv } from './mcp-targets.mjs';

function drive(request, amount, connections) {
  return new Promise((resolve, reject) => {
    const { setupRequest, ...rest } = request;
    autocannon(
      { ...rest, amount, connections, ...(setupRequest ? { requests: [{ setupRequest }] } : {}) },
      (error, result) => {
        if (error) return reject(error);
        const failed = result.non2xx + result.errors + result.timeouts;
        if (failed > 0) return reject(new Error(`${failed} of ${amount} MCP calls failed`));
        resolve(result);
      },
    );
  });
}

/**
 * [{ calls, heapMb }] at 0, step, 2·step, … `calls` calls of `tool` (default the built-in
 * `echo`; `prepare(base)` registers another): `stateless`, `stateful` or `modern` (2026-07-28).
 */
export async function heapProbe({
  mode,
  calls,
  step,
  connections,
  tmpDir,
  tool = 'echo',
  prepare,
}) {
  const gc = collector();
  // 2026-07-28 is stateless whatever SVC_MCP_MODE says; run it on a stateless gateway.
  const serverMode = mode === 'modern' ? 'stateless' : mode;
  const config = loadConfig({ ...gatewayEnv(serverMode, tmpDir), SVC_LOG_LEVEL: 'silent' });
  const app = await createGatewayApp(config);
  await app.listen(0, '127.0.0.1');
  try {
    const base = `http://127.0.0.1:${app.getHttpServer().address().port}`;
    await prepare?.(base);
    const request =
      mode === 'modern'
        ? modernRequest(base, tool)
        : mode === 'stateless'
          ? statelessRequest(base, tool)
          : sessionRequest(base, await openSession(base), tool);
    await expectToolResult(`heap (${mode}, ${tool})`, request);
    const samples = [{ calls: 0, heapMb: await heapUsedMb(gc) }];
    for (let done = step; done <= calls; done += step) {
      await drive(request, step, connections);
      samples.push({ calls: done, heapMb: await heapUsedMb(gc) });
    }
    return samples;
  } finally {
    await app.close();
  }
}
