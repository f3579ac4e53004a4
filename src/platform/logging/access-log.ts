import type { Logger } from 'pino';
import type { RequestLogFields } from './request-scope.js';

/**
 * The one line per answered request (`request completed`, or `request errored` for a 5xx) at
 * info level, with its status and duration in ms: the access log. `logger` is the root logger;
 * the line carries the request's fields explicitly, since it is written when the response
 * closes, outside the request's scope. Polled paths (probes, /metrics) are left out by the
 * caller (platform/http/polled-paths.ts).
 */
export function logAnswered(
  logger: Logger,
  req: RequestLogFields,
  status: number,
  responseTimeMs: number,
  traceFields: { trace_id?: string; span_id?: string },
): void {
  if (!logger.isLevelEnabled('info')) return;
  const fields = { ...traceFields, req, res: { status }, responseTime: Math.round(responseTimeMs) };
  if (status >= 500) {
    logger.info(
      { ...fields, err: new Error(`failed with status code ${status}`) },
      'request errored',
    );
  } else {
    logger.info(fields, 'request completed');
  }
}
