import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { AuditSink } from '../src/platform/audit/audit-sink.js';
import { newRecordId } from '../src/platform/ids/new-record-id.js';
import { sqlDialect } from '../src/platform/state/sql-dialect.js';
import { StateDatabase } from '../src/platform/state/state-database.service.js';
import { StateConflictError, StateStore } from '../src/platform/state/state-store.js';
import { RunEventLog } from '../src/runs/events/run-event-log.js';
import { RunEventStore } from '../src/runs/events/run-event.store.js';
import { RunLeases } from '../src/runs/lifecycle/run-lease.js';
import { RunLifecycle } from '../src/runs/lifecycle/run-lifecycle.js';
import type { StoredRun } from '../src/runs/record/run-record.js';
import { RunRecordStore } from '../src/runs/record/run-record.store.js';
import { StudioStore } from '../src/studio/studio.store.js';
import { BACKENDS, type BackendFixture, createBackend } from './support/backends.js';
import { type RunningGateway, startGateway } from './support/gateway.js';

const ROOT = 'run-settle-root-key';

// A run's settled record, its settled event and the release of its lease are one thing: all are
// written, in one transaction when the run's log is not being written at that moment, or none.
describe.each(BACKENDS)('a run settles with its settled event, or not at all (%s)', (backend) => {
  let fixture: BackendFixture;
  let gateway: RunningGateway;
  let template: StoredRun;

  const records = () => gateway.app.get(RunRecordStore);
  const lifecycle = () => gateway.app.get(RunLifecycle);
  const eventsOf = async (runId: string) =>
    gateway.app.get(RunEventStore).after('acme', runId, 0, 100);

  /** A run recorded `running` (version 1), made from a real run's record. */
  const runningRun = async (): Promise<StoredRun> => {
    const run: StoredRun = {
      ...template,
      run_id: newRecordId(),
      status: 'running',
      ended_at: null,
    };
    await records().put(run, 0);
    return run;
  };

  /**
   * Settles `run` at `version` in an execution of its own that first reports progress, under
   * the run's lease (given up afterwards, as AgentRunner does).
   */
  const settleInExecution = async (run: StoredRun, version: number) => {
    const lease = (await gateway.app.get(RunLeases).claim('acme', run.run_id))!;
    const journal = gateway.app.get(RunEventLog).open('acme', run.run_id, false);
    const settled: StoredRun = { ...run, status: 'completed', ended_at: new Date().toISOString() };
    try {
      return await journal.within(() => {
        lifecycle().progressed(run);
        return lifecycle().settle(settled, version);
      });
    } finally {
      await journal.flush();
      leaseAfterSettle = await leaseOwner(run.run_id);
      await lease.finish();
    }
  };
  let leaseAfterSettle: string | null = null;

  /** Who holds the run's lease in the database (null: nobody). */
  const leaseOwner = async (runId: string): Promise<string | null> => {
    const p = sqlDialect(fixture.backend).param;
    const result = await gateway.app
      .get(StateDatabase)
      .query(`SELECT owner FROM run_leases WHERE tenant_id = ${p(1)} AND run_id = ${p(2)}`, [
        'acme',
        `run:${runId}`,
      ]);
    return (result.records[0] as { owner: string } | undefined)?.owner ?? null;
  };

  beforeAll(async () => {
    fixture = await createBackend(backend);
    gateway = await startGateway({ ...fixture.env, SVC_API_KEY: ROOT });
    const ran = await request(gateway.url)
      .post('/v1/agent/run')
      .set('Authorization', `Bearer ${ROOT}`)
      .send({ tenant_id: 'acme', prompt: 'hello' })
      .expect(200);
    template = (await records().get('acme', ran.body.run_id as string))!;
  });

  afterAll(async () => {
    await gateway?.close();
    await fixture?.cleanup();
  });

  it('writes the settled record and its settled event, and gives the lease up with them', async () => {
    const run = await runningRun();
    expect(await settleInExecution(run, 1)).toBe(2);
    expect(leaseAfterSettle).toBeNull();
    expect(await records().get('acme', run.run_id)).toMatchObject({ status: 'completed' });
    const events = await eventsOf(run.run_id);
    expect(events.map((event) => event.type)).toEqual(['run.progressed', 'run.settled']);
    expect(events[1].data.run).toMatchObject({ run_id: run.run_id, status: 'completed' });
    if (fixture.database) {
      // One transaction: PostgreSQL stamps every row it wrote with the same xmin.
      const [record] = await fixture.database.query<{ xmin: string }>(
        `SELECT xmin::text FROM state_entries WHERE tenant_id = 'acme' AND session_id = $1 AND "key" = 'record'`,
        [`run:${run.run_id}`],
      );
      const written = await fixture.database.query<{ xmin: string }>(
        `SELECT xmin::text FROM run_events WHERE tenant_id = 'acme' AND run_id = $1`,
        [run.run_id],
      );
      expect(written.map((row) => row.xmin)).toEqual([record.xmin, record.xmin]);
      // The audit trail and the studio are in the database here: theirs too.
      const told = await fixture.database.query<{ xmin: string; what: string }>(
        `SELECT xmin::text, kind AS what FROM audit_events WHERE run_id = $1
         UNION ALL SELECT xmin::text, status FROM studio_loops WHERE run_id = $1`,
        [run.run_id],
      );
      expect(told).toEqual([
        { xmin: record.xmin, what: 'run.completed' },
        { xmin: record.xmin, what: 'completed' },
      ]);
    }
  });

  it("writes no settled event, and tells nobody, when another owner's record stands", async () => {
    const run = await runningRun();
    // The owner that took the run over checkpointed it meanwhile (version 2).
    await records().put({ ...run, turns: 1 }, 1);
    await expect(settleInExecution(run, 1)).rejects.toBeInstanceOf(StateConflictError);
    // The lease is still held: the run was not settled here.
    expect(leaseAfterSettle).toBe(gateway.app.get(StateStore).owner);
    expect(await records().get('acme', run.run_id)).toMatchObject({ status: 'running', turns: 1 });
    // What this execution did before is in the log; a settlement that did not happen is not.
    expect((await eventsOf(run.run_id)).map((event) => event.type)).toEqual(['run.progressed']);
    const audit = gateway.app.get(AuditSink);
    expect(await audit.list({ tenantId: 'acme', runId: run.run_id })).toEqual([]);
    // The studio shows the run at most as this execution saw it progress, never settled.
    const { loops } = await gateway.app.get(StudioStore).snapshot('acme', 500);
    const shown = loops.filter((loop) => loop.run_id === run.run_id);
    expect(shown.filter((loop) => loop.status !== 'running')).toEqual([]);
  });

  it('writes nothing when the settled run is the only event and its write fails', async () => {
    const run = await runningRun();
    const settled: StoredRun = { ...run, status: 'failed', ended_at: new Date().toISOString() };
    await expect(lifecycle().settleHere(settled, 5)).rejects.toBeInstanceOf(StateConflictError);
    expect(await eventsOf(run.run_id)).toEqual([]);
    expect(await records().get('acme', run.run_id)).toMatchObject({ status: 'running' });
  });
});
