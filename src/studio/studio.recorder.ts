import { Injectable } from '@nestjs/common';
import type { WriteInFlight } from '../platform/state/state-store.js';
import type { ChatMessage } from '../providers/chat.types.js';
import {
  RunEvents,
  type RunObserver,
  SubscribedRunObserver,
} from '../runs/lifecycle/run-events.js';
import { RUN_STOPPED_HERE } from '../runs/lifecycle/run-lifecycle.js';
import { type RunRecord, TERMINAL_STATUSES } from '../runs/record/run-record.js';
import { type LoopUpdate, StudioStore } from './studio.store.js';

/** Longest prompt or answer text the studio keeps; GET /v1/runs/{id} has the whole run. */
export const STUDIO_MAX_TEXT = 500;

function clip(text: string): string {
  return text.length > STUDIO_MAX_TEXT ? `${text.slice(0, STUDIO_MAX_TEXT - 1)}…` : text;
}

/** The prompt that started the run: its last user input message. */
function promptOf(messages: readonly ChatMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i].role === 'user') return messages[i].content;
  }
  return '';
}

/**
 * Follows every run of this process (REST, MCP-started agents, messaging, graphs with their
 * takeovers and approval resumes, `svc run`) through RunEvents and records its loop, and on a
 * run's end its session, in the StudioStore. It copies what it needs from the record and never
 * keeps or changes the record itself; RunEvents drops whatever it throws, so recording can
 * never change or fail a run. Its flush is the store's: the lifecycle waits for it before a
 * run answers.
 */
@Injectable()
export class StudioRecorder extends SubscribedRunObserver implements RunObserver {
  constructor(
    events: RunEvents,
    private readonly store: StudioStore,
  ) {
    super(events);
  }

  runStarted(record: Readonly<RunRecord>): void {
    this.recordLoop(record);
  }

  runProgressed(record: Readonly<RunRecord>): void {
    this.recordLoop(record);
  }

  /**
   * The settled loop, and the session when the run ended (a paused run gets its session record
   * when it ends, after the decision), written with the run's settled record.
   */
  runSettling(record: Readonly<RunRecord>, _marks: unknown, onlyIf: WriteInFlight): void {
    const session = TERMINAL_STATUSES.has(record.status)
      ? {
          id: record.session_id,
          tenant_id: record.tenant_id,
          agent: record.agent,
          prompt: clip(promptOf(record.messages)),
          text: clip(record.text),
          finish_reason: record.finish_reason ?? (record.status === 'failed' ? 'error' : 'stop'),
          tool_calls: record.tool_calls,
          turns: record.turns,
          run_id: record.run_id,
          updated_at: record.ended_at ?? new Date().toISOString(),
        }
      : undefined;
    this.store.putSettled(loopOf(record), session, onlyIf);
  }

  /** Settled runs were recorded as they settled (runSettling); left: runs stopped here. */
  runSettled(record: Readonly<RunRecord>): void {
    if (record.error?.type === RUN_STOPPED_HERE) this.store.loopStoppedHere(loopOf(record));
  }

  flush(): Promise<void> {
    return this.store.flush();
  }

  private recordLoop(record: Readonly<RunRecord>): void {
    this.store.putLoop(loopOf(record));
  }
}

function loopOf(record: Readonly<RunRecord>): LoopUpdate {
  return {
    tenant_id: record.tenant_id,
    agent: record.agent,
    session_id: record.session_id,
    run_id: record.run_id,
    status: record.status,
    started_at: record.started_at,
    ended_at: record.ended_at,
    turns: record.turns,
    tool_calls: record.tool_calls,
    finish_reason: record.finish_reason,
    trace_id: record.trace_id,
    pending_node: record.status === 'paused' ? (record.pending_node ?? null) : null,
    error: record.error ? clip(record.error.detail) : null,
  };
}
