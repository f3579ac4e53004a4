import type { EntryWrite } from '../platform/state/state-store.js';
import type {
  AttemptResult,
  NewOutboxEntry,
  OutboxEntry,
  OutboxStats,
  OutboxStatus,
} from './outbox-entry.js';

/**
 * The messaging outbox in the state backend (the DI token; one TypeORM implementation serves
 * sqlite and PostgreSQL). Every change is one conditional statement, so replicas racing on an
 * entry never both win.
 */
export abstract class OutboxStore {
  /**
   * Records an accepted event as `running`, due for recovery after `recoverAfterMs`. False when
   * the entry already exists: the event is a duplicate.
   */
  abstract accept(entry: NewOutboxEntry, recoverAfterMs: number): Promise<boolean>;
  abstract get(tenantId: string, id: string): Promise<OutboxEntry | null>;
  /**
   * `running` → `pending` with the reply; null when the entry was not running. Due at once, or,
   * with `claimMs`, claimed for the caller's delivery attempt: no replica's poll takes it before
   * then. With `onlyIf`, only if that write holds (the run's settled record: in its transaction).
   */
  abstract setReply(
    tenantId: string,
    id: string,
    reply: string,
    options?: { claimMs?: number; onlyIf?: EntryWrite },
  ): Promise<OutboxEntry | null>;
  /**
   * Claims a `pending` entry that is due and still at `attempts` for one delivery attempt: it is
   * due again only after `claimMs`, so no other replica attempts it meanwhile. Null when another
   * replica claimed or attempted it first.
   */
  abstract claim(
    tenantId: string,
    id: string,
    attempts: number,
    claimMs: number,
  ): Promise<OutboxEntry | null>;
  /** Moves a `running` entry's recovery `delayMs` into the future. */
  abstract postpone(tenantId: string, id: string, delayMs: number): Promise<void>;
  /**
   * Records the outcome of a delivery attempt on a `pending` entry still at `attempts`
   * (another replica's attempt in between makes this a no-op); false when it was not.
   */
  abstract recordAttempt(
    tenantId: string,
    id: string,
    attempts: number,
    result: AttemptResult,
  ): Promise<boolean>;
  /** Unfinished entries that are due now (database clock), oldest first, of every tenant. */
  abstract due(limit: number): Promise<OutboxEntry[]>;
  /** A tenant's entries, newest first. */
  abstract list(
    tenantId: string,
    status: OutboxStatus | undefined,
    limit: number,
  ): Promise<OutboxEntry[]>;
  abstract stats(): Promise<OutboxStats>;
  /** Deletes finished entries older than `ageMs`; returns how many. */
  abstract prune(ageMs: number): Promise<number>;
}
