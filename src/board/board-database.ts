import type { EntityManager } from 'typeorm';
import { StateUnavailableError } from '../platform/state/state-store.js';
import { classifyStateError } from '../platform/state/state-unavailable.js';

export type BoardBackend = 'sqlite' | 'postgres';

/**
 * The board's database, used as the injection token: a sqlite file of this replica
 * (SqliteBoardDatabase) or a PostgreSQL database every replica shares (PostgresBoardDatabase),
 * chosen from SVC_BOARD_DB in BoardModule. Both run the same TypeORM statements
 * (BoardCardStore); they differ in how concurrent work is kept apart.
 */
export abstract class BoardDatabase {
  abstract readonly backend: BoardBackend;

  /** Runs a read. A database that cannot be reached is a StateUnavailableError (503). */
  abstract read<T>(work: (manager: EntityManager) => Promise<T>): Promise<T>;

  /**
   * Runs a change of one tenant's board in one transaction, with which no other change of that
   * tenant's board interleaves, on this replica or another.
   */
  abstract write<T>(tenantId: string, work: (manager: EntityManager) => Promise<T>): Promise<T>;
}

/**
 * An error of board work as callers should see it: a database that cannot be reached (the same
 * rule as the state backend's) becomes a StateUnavailableError naming the board, which every
 * surface answers with 503 and `Retry-After`; anything else is returned as it is.
 */
export function boardError(error: unknown, backend: BoardBackend): unknown {
  const classified = classifyStateError(error, backend);
  if (!(classified instanceof StateUnavailableError) || classified === error) return classified;
  return new StateUnavailableError(
    `the board database (${backend}) cannot be reached; retry later`,
    {
      cause: error,
    },
  );
}
