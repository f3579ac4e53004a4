// scratch: profile one gateway under a route (not committed)
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { measureHttp, warmUp } from './lib/http-load.mjs';
import { AGENT_RUN, requestFor } from './lib/routes.mjs';
import { expectOk, startGatewayOn } from './lib/targets.mjs';
const backend = process.argv[2] ?? 'postgres';
const dir = process.argv[3] ?? '/tmp/prof';
const tmp = mkdtempSync(join(tmpdir(), 'prof-'));
const g = await startGatewayOn(backend, 'prof', tmp, { pgAdminDsn: 'postgres://postgres@127.0.0.1:5432/postgres' }, { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`] });
const request = requestFor(g.base, AGENT_RUN);
await expectOk('prof', request);
await warmUp([request], { connections: 10, pipelining: 1, warmupSeconds: 3 });
const r = await measureHttp({ request, pid: g.child.pid, connections: 10, seconds: 10, warmupSeconds: 0 });
console.log(JSON.stringify({ reqPerSec: r.reqPerSec, cpu: r.cpuUsPerReq }));
await g.stop();
