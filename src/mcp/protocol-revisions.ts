/** The revision served statelessly, each request carrying it in `_meta`. */
export const MODERN_REVISION = '2026-07-28';

/**
 * The revisions served with `initialize` (and sessions, in stateful mode), newest first: what a
 * 2025-era client may negotiate. (The SDK would also accept 2024-10-07, never a published
 * revision; an `initialize` naming it is answered with 2025-11-25.)
 */
export const LEGACY_REVISIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];

/** Every revision this endpoint serves, as `server/discover` lists them. */
export const SERVED_REVISIONS = [MODERN_REVISION, ...LEGACY_REVISIONS];

/** The first revision without JSON-RPC batches. */
export const BATCHES_REMOVED = '2025-06-18';

/** The first revision whose clients read an SSE event with empty data (a priming event). */
export const PRIMING_EVENTS_FROM = '2025-11-25';
