/** Attempts per complete() call, the first included. */
export const MAX_ATTEMPTS = 3;
/** First backoff; doubled per attempt (100 ms, 200 ms), ±20% jitter so replicas spread out. */
const BASE_DELAY_MS = 100;

/** Worth another attempt: rate limited or a server-side failure. Other 4xx will not change. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || (status >= 500 && status <= 599);
}

/** `Retry-After` in milliseconds: delta seconds or an HTTP date; undefined when absent or bad. */
export function parseRetryAfter(header: string | null, now = Date.now()): number | undefined {
  if (header === null) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** How long to wait before attempt `attempt + 1`: the server's word if given, else backoff. */
export function retryDelay(attempt: number, retryAfterMs?: number): number {
  if (retryAfterMs !== undefined) return retryAfterMs;
  const base = BASE_DELAY_MS * 2 ** (attempt - 1);
  return Math.round(base * (0.8 + Math.random() * 0.4));
}
