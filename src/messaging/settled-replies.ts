import { Injectable, Logger } from '@nestjs/common';
import type { WriteInFlight } from '../platform/state/state-store.js';
import {
  RunEvents,
  type RunObserver,
  SubscribedRunObserver,
} from '../runs/lifecycle/run-events.js';
import { BoundedCache } from '../tools/bounded-cache.js';
import { type RunMarks, type RunRecord, TERMINAL_STATUSES } from '../runs/record/run-record.js';
import { OutboxStore } from './outbox.store.js';
import type { OutboxEntry } from './outbox-entry.js';
import { replyText } from './reply-text.js';

/** Replies (and expected runs) no ReplyProducer took yet, remembered at most (oldest go first). */
const MAX_KEPT = 1_000;

/** A reply stored with its run's settled record, and whether its delivery was claimed with it. */
export interface StoredReply {
  entry: OutboxEntry;
  /** Claimed for the producer waiting here (OutboxStore.setReply's `claimMs`). */
  claimed: boolean;
}

/**
 * A chat message's run (origin `messaging`, its id the outbox entry's) stores its reply on the
 * entry as it settles, in the settled record's transaction (conditioned on that write), on
 * whichever replica settles it: no commit of its own, and a run taken over elsewhere is answered
 * as soon as it ends. When a ReplyProducer here waits for the run (`expect`), the same statement
 * claims the entry's delivery for it, so the delivery needs no write of its own before its
 * attempt; a run settled elsewhere leaves its entry due at once, for any replica's poll. A run
 * settled by a version before the mark leaves the reply to the producer, as before.
 */
@Injectable()
export class SettledReplies extends SubscribedRunObserver implements RunObserver {
  private readonly logger = new Logger(SettledReplies.name);
  /** The runs a producer here waits for, with how long their delivery is claimed. */
  private readonly expected = new BoundedCache<string, number>(MAX_KEPT);
  /** The entry each reply stored here left (null: not stored), until its producer takes it. */
  private readonly stored = new BoundedCache<string, Promise<StoredReply | null>>(MAX_KEPT);

  constructor(
    private readonly outbox: OutboxStore,
    events: RunEvents,
  ) {
    super(events);
  }

  /** A producer here waits for this run: its reply's delivery is claimed for `claimMs`. */
  expect(tenantId: string, runId: string, claimMs: number): void {
    this.expected.set(keyOf(tenantId, runId), claimMs);
  }

  runSettling(record: Readonly<RunRecord>, marks: Readonly<RunMarks>, onlyIf: WriteInFlight): void {
    if (marks.origin !== 'messaging' || !TERMINAL_STATUSES.has(record.status)) return;
    const key = keyOf(record.tenant_id, record.run_id);
    const claimMs = this.expected.get(key);
    const stored = this.outbox
      .setReply(record.tenant_id, record.run_id, replyText(record), {
        claimMs,
        onlyIf: onlyIf.write,
      })
      .then((entry) => (entry ? { entry, claimed: claimMs !== undefined } : null))
      .catch((err: unknown) => {
        // ReplyProducer (or the worker's recovery) stores it after the run instead.
        this.logger.warn({ err, run_id: record.run_id }, 'storing a settled reply failed');
        return null;
      });
    this.stored.set(key, stored);
  }

  /**
   * The entry, now pending with its reply, when the run settled here and stored it; null when it
   * did not (the run settled elsewhere, or before this version, or the write did not hold). The
   * run is no longer expected.
   */
  async take(tenantId: string, runId: string): Promise<StoredReply | null> {
    const key = keyOf(tenantId, runId);
    const stored = this.stored.get(key);
    this.stored.delete(key);
    this.expected.delete(key);
    return (await stored) ?? null;
  }
}

const keyOf = (tenantId: string, runId: string) => `${tenantId}\u0000${runId}`;
