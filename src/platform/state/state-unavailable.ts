import type { StateBackend } from '../config/gateway-config.js';
import { StateUnavailableError } from './state-store.js';

/** `Retry-After` (seconds) for a request refused because the state backend is unavailable. */
export const STATE_RETRY_AFTER_S = 5;

/** Socket errors: the backend's host cannot be reached, or the connection went away mid-query. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * PostgreSQL SQLSTATEs of a server that cannot serve this connection now (besides class 08,
 * connection exception): admin_shutdown, crash_shutdown, cannot_connect_now (starting up or in
 * recovery), idle_session_timeout, too_many_connections.
 */
const POSTGRES_CODES = new Set(['57P01', '57P02', '57P03', '57P05', '53300']);

/**
 * sqlite: the file stayed locked past the busy timeout, or the disk failed, is full or the file
 * cannot be opened. A constraint or syntax error is none of these.
 */
const SQLITE_CODE = /^SQLITE_(BUSY|IOERR|CANTOPEN|FULL)(_|$)/;

/** node-postgres and pg-pool say these without a code. */
const DRIVER_MESSAGE =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed and is not queryable|Query read timeout)/;

function unreachable(error: object): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code) || POSTGRES_CODES.has(code) || SQLITE_CODE.test(code)) return true;
    if (/^08[0-9A-Z]{3}$/.test(code)) return true;
  }
  return typeof message === 'string' && DRIVER_MESSAGE.test(message);
}

/** The error and what it wraps: TypeORM's `driverError`, `cause`, an AggregateError's errors. */
function* chain(error: unknown): Generator<object> {
  const seen = new Set<unknown>();
  const queue = [error];
  while (queue.length > 0 && seen.size < 16) {
    const next = queue.shift();
    if (next === null || typeof next !== 'object' || seen.has(next)) continue;
    seen.add(next);
    yield next;
    const { driverError, cause, errors } = next as {
      driverError?: unknown;
      cause?: unknown;
      errors?: unknown;
    };
    queue.push(driverError, cause, ...(Array.isArray(errors) ? (errors as unknown[]) : []));
  }
}

/**
 * The one place that decides whether a state backend call failed because the backend cannot be
 * reached (connection refused, reset or cut, pool timeout, server shutting down or starting,
 * sqlite locked or its disk failing): then a StateUnavailableError, which every surface answers
 * with 503 and `Retry-After`, carrying the driver's error as its cause. Anything else (a
 * constraint violation, a bug) is returned as it is.
 */
export function classifyStateError(error: unknown, backend: StateBackend): unknown {
  if (error instanceof StateUnavailableError) return error;
  for (const link of chain(error)) {
    if (unreachable(link)) {
      return new StateUnavailableError(
        `the state backend (${backend}) cannot be reached; retry later`,
        {
          cause: error,
        },
      );
    }
  }
  return error;
}
