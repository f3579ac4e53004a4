import { describe, expect, it } from '@jest/globals';
import type { ConfigService } from '@nestjs/config';
import type { GatewayConfig } from '../platform/config/gateway-config.js';
import type { ServingSignal } from '../platform/http/serving-signal.js';
import type { EntryWrite } from '../platform/state/state-store.js';
import { RunEvents } from '../runs/lifecycle/run-events.js';
import type { RunRecord } from '../runs/record/run-record.js';
import type { A2ATaskIndex } from './task-index.js';
import { A2ATaskUpkeep } from './task-upkeep.js';

/** The settled record's write a settled task's row goes with. */
const SETTLED: EntryWrite = {
  key: { tenantId: 'acme', sessionId: 'run:task', key: 'record' },
  version: 2,
  json: '{}',
};

describe('A2ATaskUpkeep', () => {
  it('keeps the index row of an A2A task in step, and costs any other run nothing', async () => {
    const followed: string[] = [];
    const index = {
      upsert: (run: RunRecord, onlyIf?: EntryWrite) => {
        followed.push(
          `${run.run_id} ${run.status}${onlyIf === SETTLED ? ', with its record' : ''}`,
        );
        return Promise.resolve();
      },
    } as unknown as A2ATaskIndex;
    const config = {
      get: () => ({ retentionMs: 60_000 }),
    } as unknown as ConfigService<GatewayConfig, true>;
    const events = new RunEvents();
    const upkeep = new A2ATaskUpkeep(index, events, {} as ServingSignal, config);
    upkeep.onModuleInit();
    const run = (runId: string, status: RunRecord['status']) =>
      ({ run_id: runId, tenant_id: 'acme', status }) as RunRecord;
    const settling = { write: SETTLED, outcome: Promise.resolve() };
    events.queued(run('rest', 'queued'), {});
    events.queued(run('task', 'queued'), { origin: 'a2a' });
    events.started(run('rest', 'running'), {});
    events.started(run('task', 'running'), { origin: 'a2a' });
    events.settling(run('rest', 'completed'), { webhook: true }, settling);
    events.settling(run('task', 'completed'), { origin: 'a2a' }, settling);
    // Told after the write: nothing left to write (a run stopped here wrote nothing either).
    events.settled(run('task', 'completed'), { origin: 'a2a' });
    await Promise.resolve();
    expect(followed).toEqual(['task queued', 'task running', 'task completed, with its record']);
    upkeep.onModuleDestroy();
  });
});
