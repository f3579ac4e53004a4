import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { GatewayConfig, RunLimitsConfig } from '../../platform/config/gateway-config.js';
import { ProblemException } from '../../platform/http/problem.js';
import { type HeldLease, LeaseKeeper } from '../../platform/state/lease-keeper.service.js';
import { LinkedAbort } from '../../platform/signals/linked-abort.js';
import { sessionScope } from '../../platform/state/state-scopes.js';
import { StateConflictError } from '../../platform/state/state-store.js';
import type { ChatMessage } from '../../providers/chat.types.js';
import {
  type Conversation,
  ConversationStore,
  modelHistory,
} from '../../sessions/conversation.store.js';
import { type ResolvedToolset, ToolCatalog, viewOf } from '../../tools/tool-catalog.service.js';
import type { RunLease } from '../lifecycle/run-lease.js';
import { RunLifecycle } from '../lifecycle/run-lifecycle.js';
import { stoppedReason } from '../lifecycle/run-stop.js';
import { AgentLoop, type LoopFinish } from '../loop/agent-loop.service.js';
import { ToolCallBudget } from '../loop/tool-call-budget.js';
import { runError } from '../record/run-error.js';
import type { PlainCheckpoint, RunMarks, StoredRun } from '../record/run-record.js';
import { RUN_FORMAT, runMarks } from '../record/run-record.js';
import { runView } from '../record/run-record.mapper.js';
import { RunRecordStore, type VersionedRun } from '../record/run-record.store.js';
import type { RunRequest } from '../run-request.js';
import { RunSpending } from '../lifecycle/run-spending.js';
import { type PlainProgress, readPlainProgress } from './plain-progress.js';
import { newRecordId } from '../../platform/ids/new-record-id.js';

type PlainRun = StoredRun & { loop: PlainCheckpoint };

/** The session a run continues, and whether another run on it waits or is refused. */
interface SessionClaim {
  tenantId: string;
  sessionId: string;
  /** A session the caller named (a run's own new session needs no lease: nobody else has it). */
  named: boolean;
  multitask: RunRequest['multitask'];
}

const EMPTY_SESSION: Conversation = { messages: [], trimmed: 0, version: 0, updatedAt: null };

function sessionClaim(request: RunRequest, sessionId: string): SessionClaim {
  return {
    tenantId: request.tenantId,
    sessionId,
    named: request.sessionId !== undefined,
    multitask: request.multitask,
  };
}

/** One execution of a plain run here: the run at its record's version, and who owns what. */
interface Execution {
  run: PlainRun;
  version: number;
  signal: AbortSignal;
  /** Checkpoints are written one after another, even when tool calls return together. */
  writes: Promise<unknown>;
  /** The run's toolset when it was asked for before the run was recorded (a new run). */
  toolset?: Promise<ResolvedToolset>;
}

const now = () => new Date().toISOString();

/**
 * Plain runs (the model with a toolset, continuing a session), durable: the run is recorded
 * with its checkpoint before the first model call; the model's answer is checkpointed before
 * its tool calls run, each result that returns while others still run is added to it, and a
 * completed turn goes into the session (marked with the run) at the version the run last
 * wrote. A process that takes the run over reads where it stood (readPlainProgress) and goes
 * on: no answered turn is asked again, no returned tool call runs again, and the call in
 * flight repeats with the same Idempotency-Key. Every outcome goes through RunLifecycle; a run
 * that fails on its own is recorded `failed` and returned, one that cannot go on here (lease
 * lost, backend away, shutdown) throws and leaves its checkpoint for another replica.
 */
@Injectable()
export class PlainRunner {
  private readonly limits: RunLimitsConfig;
  private readonly sessionWaitMs: number;

  constructor(
    private readonly loop: AgentLoop,
    private readonly catalog: ToolCatalog,
    private readonly conversations: ConversationStore,
    private readonly records: RunRecordStore,
    private readonly leases: LeaseKeeper,
    private readonly lifecycle: RunLifecycle,
    private readonly spending: RunSpending,
    config: ConfigService<GatewayConfig, true>,
  ) {
    this.limits = config.get('runLimits', { infer: true });
    this.sessionWaitMs = config.get('provider', { infer: true }).timeoutMs;
  }

  /**
   * Records a new run and executes it. `at` is the version its record has: 0 (none yet), or
   * that of a `queued` record left by an owner that died while the run waited for its session
   * (whose marks it keeps: `marks`).
   */
  start(
    request: RunRequest,
    runId: string,
    lease: RunLease,
    at = 0,
    marks: RunMarks = runMarks(request.origin, request.webhook !== undefined),
  ): Promise<StoredRun> {
    const sessionId = request.sessionId ?? newRecordId();
    let version = at;
    const first = {
      agent: request.agent,
      run_id: runId,
      session_id: sessionId,
      ...(request.deltas ? { deltas: true } : {}),
    };
    return this.lifecycle.execute(
      { ...first, tenant_id: request.tenantId, trace_id: null },
      {},
      (trace) => {
        const newRun = (status: 'queued' | 'running', sessionVersion: number): PlainRun => ({
          format: RUN_FORMAT,
          ...first,
          tenant_id: request.tenantId,
          status,
          text: '',
          finish_reason: null,
          turns: 0,
          tool_calls: 0,
          messages: request.input,
          trace_id: trace.traceId,
          ...(trace.spanId !== undefined ? { span_id: trace.spanId } : {}),
          ...(request.metadata ? { metadata: request.metadata } : {}),
          ...(request.actor !== undefined ? { actor: request.actor } : {}),
          ...marks,
          started_at: now(),
          ended_at: null,
          loop: {
            toolset: request.toolset,
            ...(request.model !== undefined ? { model: request.model } : {}),
            max_turns: request.maxTurns,
            continues_session: request.sessionId !== undefined,
            session_version: sessionVersion,
            turn: null,
          },
        });
        // A run's first write records it (with its lease's claim, for a new run's lease), and
        // counts it in its tenant's usage.
        const record = async (run: PlainRun) => {
          const first = version === 0;
          version = first ? await this.records.create(run) : await this.records.put(run, version);
          if (!first) return;
          await lease.claimed;
          this.spending.started(run, request.model);
        };
        // The session is busy with another run: this one is recorded `queued` while it waits.
        const queued = async () => {
          const run = newRun('queued', -1);
          await record(run);
          this.lifecycle.queued(run);
          request.onRecorded?.(runView(run));
        };
        let executing = false;
        return this.withSession(
          sessionClaim(request, sessionId),
          lease,
          async (signal) => {
            executing = true;
            // Read while the run is recorded: on PostgreSQL both go in one round trip. Awaited
            // where the loop needs it, so a missing toolset fails the run as it did.
            const toolset = this.catalog.describe(request.tenantId, request.toolset);
            toolset.catch(() => undefined);
            const session =
              request.sessionId === undefined
                ? EMPTY_SESSION
                : await this.conversations.load(request.tenantId, sessionId);
            const run = newRun('running', session.version);
            const wasQueued = version > 0;
            await record(run);
            this.lifecycle.started(run, { session_id: sessionId, toolset: request.toolset });
            if (!wasQueued) request.onRecorded?.(runView(run));
            return this.proceed(
              { run, version, signal, writes: Promise.resolve(), toolset },
              session,
            );
          },
          queued,
        ).catch(async (error: unknown) => {
          // A queued run that never got its session (it stayed busy too long) failed on its own.
          if (executing || version === at || stoppedReason(error, lease.signal) !== null)
            throw error;
          const failed: StoredRun = {
            ...withoutLoop(newRun('queued', -1)),
            status: 'failed',
            finish_reason: 'error',
            error: runError(error),
            ended_at: now(),
          };
          await this.lifecycle.settle(failed, version);
          return failed;
        });
      },
    );
  }

  /**
   * Starts again a run recorded `queued` whose owner stopped while it waited for its session:
   * nothing of it ran, so it starts from its request (kept in the record).
   */
  restart(stored: VersionedRun & { run: PlainRun }, lease: RunLease): Promise<StoredRun> {
    const { run } = stored;
    const request: RunRequest = {
      tenantId: run.tenant_id,
      agent: run.agent,
      toolset: run.loop.toolset,
      ...(run.loop.model !== undefined ? { model: run.loop.model } : {}),
      input: run.messages,
      runId: run.run_id,
      ...(run.loop.continues_session ? { sessionId: run.session_id } : {}),
      maxTurns: run.loop.max_turns,
      multitask: 'enqueue',
      ...(run.metadata ? { metadata: run.metadata } : {}),
      ...(run.actor !== undefined ? { actor: run.actor } : {}),
      ...(run.deltas ? { deltas: true } : {}),
    };
    return this.start(request, run.run_id, lease, stored.version, {
      ...(run.origin !== undefined ? { origin: run.origin } : {}),
      ...(run.webhook ? { webhook: true } : {}),
    });
  }

  /** Goes on with a stored run whose owner stopped (its lease expired, or a retry claimed it). */
  resume(stored: VersionedRun & { run: PlainRun }, lease: RunLease): Promise<StoredRun> {
    const { run } = stored;
    return this.lifecycle.execute(run, { resumed: 'takeover' }, () =>
      this.withSession(
        {
          tenantId: run.tenant_id,
          sessionId: run.session_id,
          named: run.loop.continues_session,
          multitask: 'enqueue',
        },
        lease,
        (signal) => {
          this.lifecycle.resumed(run, 'takeover');
          return this.proceed({ run, version: stored.version, signal, writes: Promise.resolve() });
        },
      ),
    );
  }

  /**
   * Runs `work` holding the session's lease when the run continues a named session (a second
   * run on it waits, `multitask: enqueue`, or is refused, `reject`); its signal aborts when the
   * run's lease or the session's is lost, or the process stops its runs.
   */
  private async withSession<T>(
    session: SessionClaim,
    lease: RunLease,
    work: (signal: AbortSignal) => Promise<T>,
    queued?: () => Promise<void>,
  ): Promise<T> {
    if (!session.named) return work(lease.signal);
    const { tenantId, sessionId } = session;
    const key = sessionScope(sessionId);
    let held: HeldLease | null = await this.leases.acquire(tenantId, key);
    if (!held && session.multitask !== 'reject') {
      await queued?.();
      // Waiting ends early when the run is cancelled, or stopped here.
      held = await this.leases.acquireWaiting(tenantId, key, this.sessionWaitMs, lease.signal);
    }
    if (!held) {
      throw new ProblemException(
        409,
        `session ${JSON.stringify(sessionId)} is busy with another run`,
        'session-busy',
      );
    }
    const link = new LinkedAbort([lease.signal, held.signal]);
    // The session's lease goes with the run's settled record when that is written.
    const letGo = lease.holdAlongside(held);
    try {
      return await work(link.signal);
    } finally {
      link.unlink();
      letGo();
      await held.release().catch(() => undefined); // it expires on its own
    }
  }

  /**
   * Executes the run from where its record and session say it stands, to its settled record.
   * `loaded` is the session when the caller has just read it.
   */
  private async proceed(execution: Execution, loaded?: Conversation): Promise<StoredRun> {
    const { run } = execution;
    try {
      const session = loaded ?? (await this.conversations.load(run.tenant_id, run.session_id));
      const read = readPlainProgress(run, run.loop, session);
      if (!read.ok) throw new ProblemException(409, read.reason, 'session-conflict');
      const progress = read.progress;
      if (progress.turns === 0 && !progress.inFlight) {
        this.conversations.checkInput({ from: progress.from, own: progress.own });
      }
      if (progress.finished) return await this.settle(execution, progress, progress.finished);
      return await this.runLoop(execution, progress);
    } catch (error) {
      const stopped = stoppedReason(error, execution.signal);
      if (stopped !== null) {
        this.lifecycle.stoppedHere(run, stopped);
        throw error;
      }
      return this.fail(execution, error);
    }
  }

  private async runLoop(execution: Execution, progress: PlainProgress): Promise<StoredRun> {
    const { run } = execution;
    const { loop } = run;
    const resolved = await (execution.toolset ??
      this.catalog.describe(run.tenant_id, loop.toolset));
    const { tools } = viewOf(resolved);
    const inFlightCalls = progress.inFlight?.answer.tool_calls?.length ?? 0;
    let own = progress.own;
    let sessionVersion = progress.sessionVersion;
    /** The run as its last turn settled it. */
    let settled: StoredRun | undefined;
    await this.loop.run({
      tenantId: run.tenant_id,
      toolset: loop.toolset,
      tools,
      resolved,
      model: loop.model,
      messages: [...modelHistory(progress.from), ...own],
      maxTurns: loop.max_turns,
      actor: run.actor,
      signal: execution.signal,
      budget: new ToolCallBudget(this.limits, progress.toolCalls + inFlightCalls),
      resume: { turns: progress.turns, inFlight: progress.inFlight },
      idempotencyKey: (turn, call) => `${run.run_id}/${turn}/${call.id}`,
      // Each call's tokens: in the ledger at once, in the record with the run's next write.
      meter: this.spending.meter(run),
      hooks: {
        answered: (turn) => {
          loop.turn = turn;
          run.turns = turn.number;
          return this.checkpoint(execution);
        },
        toolReturned: () => this.checkpoint(execution),
        turnDone: async (messages, done, finish) => {
          const turn: SessionTurn = {
            update: { from: progress.from, own: [...own, ...messages] },
            version: sessionVersion,
            mark: {
              id: run.run_id,
              turns: done.turns,
              tool_calls: progress.toolCalls + done.tool_calls,
            },
          };
          if (finish) {
            settled = await this.settleLastTurn(execution, turn, finish);
            return;
          }
          const saved = await this.conversations
            .save(run.tenant_id, run.session_id, turn.update, turn.version, turn.mark)
            .catch((error: unknown) => sessionFailed(run, error));
          own = saved.own;
          sessionVersion = saved.version;
          run.turns = turn.mark.turns;
          run.tool_calls = turn.mark.tool_calls;
          this.lifecycle.progressed(run);
        },
      },
    });
    return (
      settled ??
      this.settle(
        execution,
        { ...progress, own, turns: run.turns, toolCalls: run.tool_calls },
        // No turn was left to run (a resumed run at its turn limit).
        'max_turns',
      )
    );
  }

  /**
   * The loop's last turn: written into the session, and the run settled `completed`, in one
   * statement group, the record only if the session's write holds. Both commit in one
   * transaction (one commit and one round trip fewer than one after the other) or neither
   * does; a session another run changed meanwhile is a session conflict, as after any turn.
   */
  private async settleLastTurn(
    execution: Execution,
    turn: SessionTurn,
    finish: LoopFinish,
  ): Promise<StoredRun> {
    const { run } = execution;
    const { turns, tool_calls: toolCalls } = turn.mark;
    await execution.writes;
    // From here to the settle's statement nothing waits: both go in one group.
    const session = this.conversations.saveAt(
      run.tenant_id,
      run.session_id,
      turn.update,
      turn.version,
      { ...turn.mark, finish },
    );
    session.saved.catch(() => undefined); // answered below
    const progressed: PlainRun = { ...run, turns, tool_calls: toolCalls };
    this.lifecycle.progressed(progressed);
    const settled = completedRun(progressed, { own: session.own, turns, toolCalls }, finish);
    const settling = this.lifecycle.settle(settled, execution.version, undefined, session.write);
    settling.catch(() => undefined); // the session's failure, when it failed, is the cause
    await session.saved.catch((error: unknown) => sessionFailed(run, error));
    execution.version = await settling;
    return settled;
  }

  /** The checkpoint of the turn in flight, written after the ones before it. */
  private checkpoint(execution: Execution): Promise<void> {
    const write = execution.writes.then(async () => {
      execution.signal.throwIfAborted();
      execution.version = await this.records.put(execution.run, execution.version);
    });
    execution.writes = write.catch(() => undefined);
    return write;
  }

  /** The loop ended and the session holds it: the run is recorded `completed`. */
  private async settle(
    execution: Execution,
    progress: Pick<PlainProgress, 'own' | 'turns' | 'toolCalls'>,
    finish: LoopFinish,
  ): Promise<StoredRun> {
    const settled = completedRun(execution.run, progress, finish);
    await execution.writes;
    execution.version = await this.lifecycle.settle(settled, execution.version);
    return settled;
  }

  /**
   * The run failed on its own (the model failed, asked for too much, the session conflicted):
   * recorded `failed` with the problem its caller gets. If even that cannot be written, the run
   * is not settled: the write's error propagates and the run stays with its checkpoint.
   */
  private async fail(execution: Execution, error: unknown): Promise<StoredRun> {
    const failed: StoredRun = {
      ...withoutLoop(execution.run),
      status: 'failed',
      finish_reason: 'error',
      error: runError(error),
      ended_at: now(),
    };
    await execution.writes;
    execution.version = await this.lifecycle.settle(failed, execution.version);
    return failed;
  }
}

/** A turn to write into the run's session, over `version`. */
interface SessionTurn {
  update: { from: PlainProgress['from']; own: ChatMessage[] };
  version: number;
  mark: { id: string; turns: number; tool_calls: number };
}

/** A session write failed: another run having written it is a session conflict. */
function sessionFailed(run: PlainRun, error: unknown): never {
  if (!(error instanceof StateConflictError)) throw error;
  throw new ProblemException(
    409,
    `session ${JSON.stringify(run.session_id)} was changed by another run during this one`,
    'session-conflict',
  );
}

/** The run settled `completed` where its loop ended. */
function completedRun(
  run: PlainRun,
  progress: Pick<PlainProgress, 'own' | 'turns' | 'toolCalls'>,
  finish: LoopFinish,
): StoredRun {
  const reply = progress.own.findLast((message) => message.role === 'assistant');
  return {
    ...withoutLoop(run),
    status: 'completed',
    text: reply?.content ?? '',
    finish_reason: finish,
    turns: progress.turns,
    tool_calls: progress.toolCalls,
    messages: progress.own,
    ended_at: now(),
  };
}

function withoutLoop(run: PlainRun): StoredRun {
  const { loop, ...rest } = run;
  return rest;
}
