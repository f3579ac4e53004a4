/**
 * Usage is kept per UTC calendar day, written `YYYY-MM-DD` (it sorts and compares as text), and
 * budgets reset at UTC midnight (daily) and on the first of the month (monthly), whatever the
 * replicas' time zones.
 */

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAY_MS = 86_400_000;

/** The UTC day of `at`. */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** True for a real calendar day in `YYYY-MM-DD` form (not 2026-02-30). */
export function isCalendarDay(text: string): boolean {
  const match = DAY.exec(text);
  if (!match) return false;
  const at = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
  return Number(match[1]) >= 1970 && utcDay(at) === text;
}

/** Midnight UTC at the start of `day`. */
function startOf(day: string): Date {
  return new Date(`${day}T00:00:00.000Z`);
}

/** The first day of `day`'s month. */
export function monthStart(day: string): string {
  return `${day.slice(0, 7)}-01`;
}

/** When the day after `day` begins (a daily budget's reset). */
export function nextDayStart(day: string): Date {
  return new Date(startOf(day).getTime() + DAY_MS);
}

/** When the month after `day`'s begins (a monthly budget's reset). */
export function nextMonthStart(day: string): Date {
  const start = startOf(day);
  return new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
}

/** Days from `from` to `to`, both counted (1 for the same day; 0 or less when `to` is before). */
export function daysCovered(from: string, to: string): number {
  return Math.round((startOf(to).getTime() - startOf(from).getTime()) / DAY_MS) + 1;
}
