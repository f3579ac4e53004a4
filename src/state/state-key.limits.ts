import type { StateKey } from './state-store.js';

/** Column sizes of the state tables; longer ids are refused before they reach the database. */
export const MAX_TENANT_ID = 128;
export const MAX_SESSION_ID = 256;
export const MAX_KEY = 256;
export const MAX_RUN_ID = 256;

/** An identifier the state backend cannot hold (too long or empty): a caller's mistake, a 400. */
export class InvalidStateKeyError extends Error {
  override readonly name = 'InvalidStateKeyError';
}

function check(what: string, value: string, max: number): void {
  if (typeof value !== 'string' || value.length === 0 || value.length > max) {
    throw new InvalidStateKeyError(`${what} must be a string of 1 to ${max} characters`);
  }
}

export function assertSessionKey(tenantId: string, sessionId: string): void {
  check('tenant_id', tenantId, MAX_TENANT_ID);
  check('session_id', sessionId, MAX_SESSION_ID);
}

export function assertStateKey(key: StateKey): void {
  assertSessionKey(key.tenantId, key.sessionId);
  check('key', key.key, MAX_KEY);
}

export function assertLeaseKey(tenantId: string, runId: string, ttlMs: number): void {
  check('tenant_id', tenantId, MAX_TENANT_ID);
  check('run_id', runId, MAX_RUN_ID);
  if (!Number.isFinite(ttlMs) || ttlMs <= 0)
    throw new InvalidStateKeyError('lease ttl must be positive');
}
