import type { StateKey } from './state-store.js';

/** Column sizes of the state tables; longer ids are refused before they reach the database. */
export const MAX_TENANT_ID = 128;
export const MAX_SESSION_ID = 256;
export const MAX_KEY = 256;
export const MAX_RUN_ID = 256;

/**
 * Control characters (C0, DEL, C1) and lone UTF-16 surrogates. PostgreSQL cannot store NUL in
 * text at all, and a lone surrogate is sent as U+FFFD, so two different ids would meet in one
 * row; none of them belongs in an identifier or a log line either.
 */
const UNSAFE_CHARACTER = /[\p{Cc}\p{Cs}]/u;

/** A string fit to be an identifier: no control characters, well-formed Unicode. */
export function isSafeIdentifier(value: string): boolean {
  return !UNSAFE_CHARACTER.test(value);
}

/** The rule an identifier breaks, for a 400's message; null when it is fine. */
export function identifierProblem(what: string, value: unknown, max: number): string | null {
  if (typeof value !== 'string' || value.length === 0 || value.length > max) {
    return `${what} must be a string of 1 to ${max} characters`;
  }
  if (!isSafeIdentifier(value)) return `${what} must not contain control characters`;
  return null;
}

/** An identifier the state backend cannot hold (too long or empty): a caller's mistake, a 400. */
export class InvalidStateKeyError extends Error {
  override readonly name = 'InvalidStateKeyError';
}

/**
 * The one check every identifier passes before it reaches a state table (entries, leases, the
 * messaging outbox), whatever surface it came from.
 */
export function assertIdentifier(what: string, value: string, max: number): void {
  const problem = identifierProblem(what, value, max);
  if (problem !== null) throw new InvalidStateKeyError(problem);
}

export function assertSessionKey(tenantId: string, sessionId: string): void {
  assertIdentifier('tenant_id', tenantId, MAX_TENANT_ID);
  assertIdentifier('session_id', sessionId, MAX_SESSION_ID);
}

export function assertStateKey(key: StateKey): void {
  assertSessionKey(key.tenantId, key.sessionId);
  assertIdentifier('key', key.key, MAX_KEY);
}

export function assertLeaseKey(tenantId: string, runId: string, ttlMs: number): void {
  assertIdentifier('tenant_id', tenantId, MAX_TENANT_ID);
  assertIdentifier('run_id', runId, MAX_RUN_ID);
  if (!Number.isFinite(ttlMs) || ttlMs <= 0)
    throw new InvalidStateKeyError('lease ttl must be positive');
}
