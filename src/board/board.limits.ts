/** Every tenant's board has these columns, in this order. New cards go to the first. */
export const BOARD_COLUMNS = ['todo', 'doing', 'done'] as const;
export type BoardColumn = (typeof BOARD_COLUMNS)[number];
export const DEFAULT_COLUMN: BoardColumn = 'todo';

export const MAX_TITLE = 200;
export const MAX_DESCRIPTION = 10_000;
export const MAX_ASSIGNEE = 128;
/**
 * Cards one tenant may hold. The board is read whole (`GET /v1/board`, `board_list`), so this
 * bounds that answer too: at most about 10 MB with every description at its limit.
 */
export const MAX_CARDS_PER_TENANT = 1_000;
/** A card id as the gateway makes them (a UUID); longer ids are never looked up. */
export const MAX_CARD_ID = 36;

export function isBoardColumn(value: string): value is BoardColumn {
  return (BOARD_COLUMNS as readonly string[]).includes(value);
}
