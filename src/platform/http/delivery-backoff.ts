/** The longest wait between two delivery attempts chosen by backoff. */
export const MAX_BACKOFF_MS = 5 * 60_000;
/** A chat system's Retry-After is honoured up to this long. */
export const MAX_RETRY_AFTER_MS = 60 * 60_000;

/**
 * How long to wait after failed attempt number `attempt` (1-based) before the next one: the chat
 * receiver's Retry-After when it sent one, else `baseMs` doubled per attempt, capped at
 * MAX_BACKOFF_MS, with ±25% jitter so that replicas and messages spread out.
 */
export function deliveryDelayMs(
  attempt: number,
  baseMs: number,
  retryAfterMs?: number,
  random: () => number = Math.random,
): number {
  if (retryAfterMs !== undefined) return Math.min(Math.max(retryAfterMs, 0), MAX_RETRY_AFTER_MS);
  const exponential = Math.min(baseMs * 2 ** Math.min(attempt - 1, 30), MAX_BACKOFF_MS);
  return Math.round(exponential * (0.75 + random() * 0.5));
}
