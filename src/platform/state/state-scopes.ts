/**
 * The `session_id` column of a state entry is a scope: a caller's session id never shares a scope
 * with the gateway's own records, whatever the caller names it.
 */
export const RUN_LEASE_PREFIX = 'run:';
export const sessionScope = (sessionId: string): string => `session:${sessionId}`;
/** The scope of a run's entries, and the key of its run lease. */
export const runScope = (runId: string): string => `${RUN_LEASE_PREFIX}${runId}`;
export const AGENTS_SCOPE = 'agents';
/** The A2A tasks a tenant started (one entry per task: ListTasks reads them). */
export const A2A_TASKS_SCOPE = 'a2a-tasks';
/** A tenant's own token budgets (PUT /v1/budgets/{tenant}). */
export const BUDGETS_SCOPE = 'budgets';
