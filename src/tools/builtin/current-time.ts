export type ZonedTime = { ok: true; time: string; timezone: string } | { ok: false; error: string };

/**
 * The current time in an IANA zone as ISO-8601 with that zone's offset
 * (`2025-06-01T14:03:07.123+02:00`; `Z` at offset zero). An unknown zone is an error result.
 */
export function currentTime(timezone = 'UTC', now = new Date()): ZonedTime {
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      fractionalSecondDigits: 3,
      timeZoneName: 'longOffset',
    });
  } catch {
    return {
      ok: false,
      error: `unknown time zone "${timezone}" (use an IANA name like Europe/Paris)`,
    };
  }
  const parts = new Map(format.formatToParts(now).map((part) => [part.type, part.value]));
  const part = (type: Intl.DateTimeFormatPartTypes): string => parts.get(type) ?? '';
  // longOffset reads `GMT+02:00`; offset zero is `GMT` or `GMT+00:00` depending on ICU.
  const offset =
    part('timeZoneName')
      .replace(/^GMT/, '')
      .replace(/^[+-]00:00$/, '') || 'Z';
  const date = `${part('year')}-${part('month')}-${part('day')}`;
  const time = `${part('hour')}:${part('minute')}:${part('second')}.${part('fractionalSecond')}`;
  // The caller's name, not resolvedOptions(): ICU would turn Asia/Kolkata into Asia/Calcutta.
  return { ok: true, time: `${date}T${time}${offset}`, timezone };
}
