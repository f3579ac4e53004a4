import { RequestMalformedError } from '@a2a-js/sdk/errors';
import { TaskState, taskStateName } from '../tools/a2a/a2a-sdk.js';
import type { TaskCursor } from './task-index.js';

/** The page size ListTasks uses when none is asked for, and the bounds A2A sets for it. */
export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 100;

const ID = /^[A-Za-z0-9_.:-]{1,256}$/;

/**
 * `historyLength` as A2A defines it (section 3.2.4): absent is no limit, 0 no history, more at
 * most that many messages; anything else is refused (a negative length dropped messages).
 */
export function checkHistoryLength(value: number | undefined): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Number.isInteger(value) || value < 0) {
    throw new RequestMalformedError(`historyLength must be a non-negative integer, got ${value}`);
  }
  return value;
}

/** `pageSize`: 1 to 100 (A2A's ListTasksRequest), 50 when absent; anything else is refused. */
export function checkPageSize(value: number | undefined): number {
  if (value === undefined || value === null) return DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(value) || value < 1 || value > MAX_PAGE_SIZE) {
    throw new RequestMalformedError(
      `pageSize must be an integer between 1 and ${MAX_PAGE_SIZE}, got ${value}`,
    );
  }
  return value;
}

/** A status filter A2A defines (UNSPECIFIED is none); an unknown one is refused. */
export function checkStatus(value: TaskState | undefined): TaskState {
  const state = value ?? TaskState.TASK_STATE_UNSPECIFIED;
  if (taskStateName(state) === undefined || state === TaskState.UNRECOGNIZED) {
    throw new RequestMalformedError(`status ${String(value)} is no task state`);
  }
  return state;
}

/** `statusTimestampAfter` as epoch ms; an unreadable time is refused. */
export function checkTimestamp(value: string | undefined): number | undefined {
  if (!value) return undefined;
  const at = Date.parse(value);
  if (Number.isNaN(at)) {
    throw new RequestMalformedError(
      `statusTimestampAfter is no ISO 8601 time: ${value.slice(0, 64)}`,
    );
  }
  return at;
}

/** The opaque `nextPageToken` of a cursor: where the next page starts. */
export function pageToken(cursor: TaskCursor): string {
  return Buffer.from(JSON.stringify([cursor.statusAt, cursor.taskId])).toString('base64url');
}

/** The cursor a `pageToken` stands for; a token this server did not give is refused. */
export function cursorOf(token: string | undefined): TaskCursor | null {
  if (!token) return null;
  try {
    const value: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (
      Array.isArray(value) &&
      value.length === 2 &&
      Number.isSafeInteger(value[0]) &&
      typeof value[1] === 'string' &&
      ID.test(value[1])
    ) {
      return { statusAt: value[0] as number, taskId: value[1] };
    }
  } catch {
    // refused below
  }
  throw new RequestMalformedError('pageToken is not one this server gave');
}
