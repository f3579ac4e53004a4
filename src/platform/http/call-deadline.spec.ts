import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { getEventListeners } from 'node:events';
import { CallDeadline } from './call-deadline.js';

describe('CallDeadline', () => {
  beforeEach(() => {
    jest.useFakeTimers();
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  it('aborts with a TimeoutError once the deadline passes, and says so', () => {
    const call = new CallDeadline(5_000);
    jest.advanceTimersByTime(4_999);
    expect(call.signal.aborted).toBe(false);
    jest.advanceTimersByTime(1);
    expect(call.timedOut).toBe(true);
    expect((call.signal.reason as DOMException).name).toBe('TimeoutError');
    call.end();
  });

  it("aborts with the caller's reason when the caller aborts first (not a timeout)", () => {
    const caller = new AbortController();
    const call = new CallDeadline(60_000, caller.signal);
    const reason = new Error('run cancelled');
    caller.abort(reason);
    expect(call.signal.aborted).toBe(true);
    expect(call.signal.reason).toBe(reason);
    expect(call.timedOut).toBe(false);
    call.end();
  });

  it('starts aborted when the caller already is', () => {
    const caller = new AbortController();
    caller.abort('gone');
    const call = new CallDeadline(60_000, caller.signal);
    expect(call.signal.reason).toBe('gone');
    call.end();
  });

  it("lets go of the caller's signal and the timer when the call ends", () => {
    const caller = new AbortController();
    const call = new CallDeadline(5_000, caller.signal);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(1);
    call.end();
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
    expect(jest.getTimerCount()).toBe(0);
    jest.advanceTimersByTime(10_000);
    expect(call.signal.aborted).toBe(false);
    expect(call.timedOut).toBe(false);
  });
});
