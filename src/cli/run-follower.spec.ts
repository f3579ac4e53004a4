import { describe, expect, it } from '@jest/globals';
import { runEventOf, runIdFromLocation } from './run-follower.js';

describe('following a run over HTTP', () => {
  it('reads the run id from Location', () => {
    expect(runIdFromLocation('/v1/runs/r-1?tenant_id=acme')).toBe('r-1');
    expect(runIdFromLocation('http://gw/prefix/v1/runs/a%3Ab?tenant_id=x')).toBe('a:b');
    expect(runIdFromLocation(null)).toBeUndefined();
    expect(runIdFromLocation('/elsewhere')).toBeUndefined();
  });

  it('takes a run event from an event whose data is one, and nothing else', () => {
    const data = { id: 3, type: 'tool.started', at: 'now', data: { name: 'x' } };
    expect(runEventOf({ id: '3', event: 'tool.started', data: JSON.stringify(data) })).toEqual(
      data,
    );
    expect(runEventOf({ event: 'message', data: 'not json' })).toBeNull();
    expect(runEventOf({ event: 'message', data: '{"id":"3","type":"x","data":{}}' })).toBeNull();
    expect(runEventOf({ event: 'message', data: '{"id":3,"type":"x"}' })).toBeNull();
  });
});
