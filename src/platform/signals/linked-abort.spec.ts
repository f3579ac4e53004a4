import { describe, expect, it } from '@jest/globals';
import { getEventListeners } from 'node:events';
import { LinkedAbort } from './linked-abort.js';

describe('LinkedAbort', () => {
  it('aborts with the reason of the first source that aborts', () => {
    const [a, b] = [new AbortController(), new AbortController()];
    const link = new LinkedAbort([a.signal, b.signal]);
    expect(link.signal.aborted).toBe(false);
    b.abort('b first');
    a.abort('a later');
    expect(link.signal.reason).toBe('b first');
  });

  it('starts aborted when a source already is, and listens to nothing then', () => {
    const [a, b] = [new AbortController(), new AbortController()];
    a.abort('gone');
    const link = new LinkedAbort([a.signal, b.signal]);
    expect(link.signal.reason).toBe('gone');
    expect(getEventListeners(b.signal, 'abort')).toHaveLength(0);
  });

  it('aborts when told to, keeping the first reason', () => {
    const source = new AbortController();
    const link = new LinkedAbort([source.signal]);
    link.abort('cancelled');
    source.abort('later');
    link.abort('again');
    expect(link.signal.reason).toBe('cancelled');
    const plain = new LinkedAbort([]);
    plain.abort();
    expect((plain.signal.reason as DOMException).name).toBe('AbortError');
  });

  it('lets go of its sources when unlinked: a later abort of theirs reaches nothing', () => {
    const [a, b] = [new AbortController(), new AbortController()];
    const link = new LinkedAbort([a.signal, b.signal]);
    expect(getEventListeners(a.signal, 'abort')).toHaveLength(1);
    expect(getEventListeners(b.signal, 'abort')).toHaveLength(1);
    link.unlink();
    expect(getEventListeners(a.signal, 'abort')).toHaveLength(0);
    expect(getEventListeners(b.signal, 'abort')).toHaveLength(0);
    a.abort('late');
    expect(link.signal.aborted).toBe(false);
  });
});
