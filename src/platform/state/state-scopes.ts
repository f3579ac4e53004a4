/**
 * The `session_id` column of a state entry is a scope: a caller's session id never shares a scope
 * with the gateway's own records, whatever the caller names it.
 */
export const RUN_LEASE_PREFIX = 'run:';
export const sessionScope = (sessionId: string): string => `session:${sessionId}`;
/** The scope of a run's entries, and the key of its run lease. */
export const runScope = (runId: string): string => `${RUN_LEASE_PREFIX}${runId}`;
export const AGENTS_SCOPE = 'agents';
