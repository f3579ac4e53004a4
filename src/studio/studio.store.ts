import type { WriteInFlight } from '../platform/state/state-store.js';
import type { StudioLoop, StudioSession, StudioSnapshot } from './studio-records.js';

/** What the store keeps, per tenant, of each kind; the oldest make room first. */
export const STUDIO_RECORDS_PER_TENANT = 500;
export const STUDIO_DEFAULT_LIMIT = 50;
export const STUDIO_MAX_LIMIT = 500;

/** A loop as the recorder reports it; the store gives it its `id`. */
export type LoopUpdate = Omit<StudioLoop, 'id' | 'type'>;
/** A session's latest run as the recorder reports it; the store counts `runs`. */
export type SessionUpdate = Omit<StudioSession, 'type' | 'runs'>;

/**
 * The studio's records (spec section 2), behind one port: in this process's memory (the
 * embedded default of a single sqlite replica) or in the state backend, where every replica
 * writes and reads the same loops and sessions (CONTRACT 10). Writes are synchronous and never
 * throw (the recorder is called from the run lifecycle); a durable store writes them in the
 * background.
 */
export abstract class StudioStore {
  /** Creates or replaces the loop of `update.run_id`; a loop keeps its place and its id. */
  abstract putLoop(update: LoopUpdate): void;

  /**
   * The run stopped on this replica unfinished (lease lost, backend away, shutdown) and goes on
   * from its checkpoint elsewhere. `update` is the loop as this replica last saw it, failed here.
   */
  abstract loopStoppedHere(update: LoopUpdate): void;

  /** Records the latest run of a session: the session becomes the newest. */
  abstract putSession(update: SessionUpdate): void;

  /**
   * `putLoop`, and `putSession` when the run ended, for a run whose settled record was just
   * asked for (`onlyIf`): they happened only if that write holds. Here they are put once it is
   * done; a store in the state backend sends them with the write, in its transaction.
   */
  putSettled(loop: LoopUpdate, session: SessionUpdate | undefined, onlyIf: WriteInFlight): void {
    onlyIf.outcome.then(
      () => {
        this.putLoop(loop);
        if (session) this.putSession(session);
      },
      () => undefined,
    );
  }

  /** One tenant's records, or every tenant's when `tenantId` is undefined; newest first. */
  abstract snapshot(tenantId: string | undefined, limit?: number): Promise<StudioSnapshot>;

  /** Resolves once what was put before is where every replica reads it (bounded). */
  abstract flush(): Promise<void>;
}
