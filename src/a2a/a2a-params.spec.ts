import { describe, expect, it } from '@jest/globals';
import { TaskState } from '@a2a-js/sdk';
import {
  checkHistoryLength,
  checkPageSize,
  checkStatus,
  checkTimestamp,
  cursorOf,
  pageToken,
} from './a2a-params.js';

const refused = (work: () => unknown) => {
  try {
    work();
  } catch (error) {
    return (error as Error).constructor.name;
  }
  return 'accepted';
};

describe('A2A request parameters', () => {
  it('takes what A2A allows and refuses the rest as invalid parameters', () => {
    expect(checkHistoryLength(undefined)).toBeUndefined();
    expect(checkHistoryLength(0)).toBe(0);
    expect(refused(() => checkHistoryLength(-1))).toMatch(/RequestMalformed/);
    expect(refused(() => checkHistoryLength(1.5))).toMatch(/RequestMalformed/);
    expect(checkPageSize(undefined)).toBe(50);
    expect(checkPageSize(100)).toBe(100);
    for (const size of [0, -5, 101, 150, 2.5]) {
      expect([size, refused(() => checkPageSize(size))]).toEqual([
        size,
        expect.stringMatching(/RequestMalformed/),
      ]);
    }
    expect(checkStatus(undefined)).toBe(TaskState.TASK_STATE_UNSPECIFIED);
    expect(checkStatus(TaskState.TASK_STATE_WORKING)).toBe(TaskState.TASK_STATE_WORKING);
    expect(refused(() => checkStatus(TaskState.UNRECOGNIZED))).toMatch(/RequestMalformed/);
    expect(checkTimestamp('2026-01-01T00:00:00Z')).toBe(Date.parse('2026-01-01T00:00:00Z'));
    expect(refused(() => checkTimestamp('yesterday'))).toMatch(/RequestMalformed/);
  });

  it('gives page tokens it reads back, and refuses any other', () => {
    const cursor = { statusAt: 1_790_000_000_000, taskId: 'run-1' };
    expect(cursorOf(pageToken(cursor))).toEqual(cursor);
    expect(cursorOf('')).toBeNull();
    const forged = Buffer.from(JSON.stringify([1, 'a b'])).toString('base64url');
    for (const token of ['not-a-token', '12', forged]) {
      expect([token, refused(() => cursorOf(token))]).toEqual([
        token,
        expect.stringMatching(/RequestMalformed/),
      ]);
    }
  });
});
