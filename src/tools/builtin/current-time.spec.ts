import { describe, expect, it } from '@jest/globals';
import { currentTime } from './current-time.js';

const instant = new Date('2025-01-15T12:34:56.789Z');

describe('currentTime', () => {
  it('is UTC by default, as toISOString writes it', () => {
    expect(currentTime(undefined, instant)).toEqual({
      ok: true,
      time: '2025-01-15T12:34:56.789Z',
      timezone: 'UTC',
    });
  });

  it("writes the zone's local time with its offset", () => {
    expect(currentTime('Asia/Kolkata', instant)).toMatchObject({
      time: '2025-01-15T18:04:56.789+05:30',
      timezone: 'Asia/Kolkata',
    });
    expect(currentTime('America/New_York', instant)).toMatchObject({
      time: '2025-01-15T07:34:56.789-05:00',
    });
    // Just after midnight local time: the hour is 00, never 24.
    expect(currentTime('Europe/Paris', new Date('2025-01-15T23:00:01Z'))).toMatchObject({
      time: '2025-01-16T00:00:01.000+01:00',
    });
    expect(currentTime('Pacific/Chatham', instant)).toMatchObject({
      time: '2025-01-16T02:19:56.789+13:45',
    });
    expect(currentTime('Europe/London', instant)).toMatchObject({
      time: '2025-01-15T12:34:56.789Z',
    });
  });

  it('round-trips through Date', () => {
    const now = currentTime('Australia/Adelaide', instant);
    expect(now.ok && new Date(now.time).getTime()).toBe(instant.getTime());
  });

  it('reports an unknown zone as an error result', () => {
    expect(currentTime('Mars/Olympus_Mons', instant)).toEqual({
      ok: false,
      error: 'unknown time zone "Mars/Olympus_Mons" (use an IANA name like Europe/Paris)',
    });
  });
});
