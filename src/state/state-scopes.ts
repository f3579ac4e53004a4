/**
 * The `session_id` column of a state entry is a scope: a caller's session id never shares a scope
 * with the gateway's own records, whatever the caller names it.
 */
export const sessionScope = (sessionId: string): string => `session:${sessionId}`;
export const runScope = (runId: string): string => `run:${runId}`;
export const AGENTS_SCOPE = 'agents';
