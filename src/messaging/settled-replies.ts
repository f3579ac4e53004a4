import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { WriteInFlight } from '../platform/state/state-store.js';
import { RunEvents, type RunObserver } from '../runs/lifecycle/run-events.js';
import { type RunMarks, type RunRecord, TERMINAL_STATUSES } from '../runs/record/run-record.js';
import { OutboxStore } from './outbox.store.js';
import type { OutboxEntry } from './outbox-entry.js';
import { replyText } from './reply-text.js';

/** Replies stored here that no ReplyProducer took yet, remembered at most (oldest go first). */
const MAX_KEPT = 1_000;

/**
 * A chat message's run (origin `messaging`, its id the outbox entry's) stores its reply on the
 * entry as it settles, in the settled record's transaction (conditioned on that write), on
 * whichever replica settles it: no commit of its own, and a run taken over elsewhere is answered
 * as soon as it ends. ReplyProducer then finds the entry pending; a run settled by a version
 * before the mark leaves the reply to it, as before.
 */
@Injectable()
export class SettledReplies implements RunObserver, OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(SettledReplies.name);
  private unsubscribe?: () => void;
  /** The entry each reply stored here left (null: not stored), until its producer takes it. */
  private readonly stored = new Map<string, Promise<OutboxEntry | null>>();

  constructor(
    private readonly outbox: OutboxStore,
    private readonly events: RunEvents,
  ) {}

  onModuleInit(): void {
    this.unsubscribe = this.events.subscribe(this);
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
  }

  runSettling(record: Readonly<RunRecord>, marks: Readonly<RunMarks>, onlyIf: WriteInFlight): void {
    if (marks.origin !== 'messaging' || !TERMINAL_STATUSES.has(record.status)) return;
    const stored = this.outbox
      .setReply(record.tenant_id, record.run_id, replyText(record), onlyIf.write)
      .catch((err: unknown) => {
        // ReplyProducer (or the worker's recovery) stores it after the run instead.
        this.logger.warn({ err, run_id: record.run_id }, 'storing a settled reply failed');
        return null;
      });
    const key = keyOf(record.tenant_id, record.run_id);
    this.stored.delete(key);
    if (this.stored.size >= MAX_KEPT) this.stored.delete(this.stored.keys().next().value!);
    this.stored.set(key, stored);
  }

  /**
   * The entry, now pending with its reply, when the run settled here and stored it; null when it
   * did not (the run settled elsewhere, or before this version, or the write did not hold).
   */
  async take(tenantId: string, runId: string): Promise<OutboxEntry | null> {
    const key = keyOf(tenantId, runId);
    const stored = this.stored.get(key);
    this.stored.delete(key);
    return (await stored) ?? null;
  }
}

const keyOf = (tenantId: string, runId: string) => `${tenantId}\u0000${runId}`;
