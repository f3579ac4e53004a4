import { Injectable, type NestMiddleware } from '@nestjs/common';
import { ROOT_CONTEXT, context } from '@opentelemetry/api';
import type { Request, Response } from 'express';
import { PinoLogger } from 'nestjs-pino';
import { performance } from 'node:perf_hooks';
import { logAnswered } from '../logging/access-log.js';
import { assignRequestId } from '../logging/request-id.js';
import { inRequestScope, type RequestLogFields } from '../logging/request-scope.js';
import { Metrics } from '../telemetry/metrics.service.js';
import { isPolledPath } from './polled-paths.js';
import {
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_SVC_REQUEST_ID,
  ATTR_URL_PATH,
} from '../telemetry/semconv.js';
import { Tracing, markFailed } from '../telemetry/tracing.service.js';

/** The route template Express matched (`/v1/runs/:run_id`), never the raw path. */
function routeOf(req: Request): string | undefined {
  const route = (req.route as { path?: unknown } | undefined)?.path;
  return typeof route === 'string' ? `${req.baseUrl}${route}` : undefined;
}

/**
 * Where every request enters the gateway, in one middleware (each Express layer costs every
 * request): its id (`X-Request-Id`), its log scope (`req` on every line written while it is
 * handled), the HTTP server span (`METHOD route`, continuing an incoming W3C `traceparent`;
 * the rest of the request runs in its context, so run, model, tool and state spans are its
 * children), and, when the response closes, the request duration metric, the span's end and
 * the access log line. Mounted first by the app's request pipeline (src/app/request-pipeline.ts).
 */
@Injectable()
export class RequestEntryMiddleware implements NestMiddleware {
  constructor(
    private readonly tracing: Tracing,
    private readonly metrics: Metrics,
    private readonly logger: PinoLogger,
  ) {}

  use(req: Request, res: Response, next: () => void): void {
    const started = performance.now();
    const id = assignRequestId(req, res);
    (req as { id?: string }).id = id;
    const method = req.method;
    const path = req.originalUrl.split('?', 1)[0];
    const fields: RequestLogFields = { id, method, path, remote: req.socket.remoteAddress };
    const polled = isPolledPath(path);
    const traced = polled
      ? undefined
      : this.tracing.startServerSpan(
          {
            name: method,
            attributes: { [ATTR_HTTP_REQUEST_METHOD]: method, [ATTR_URL_PATH]: path },
          },
          req.headers,
        );
    res.once('close', () => {
      const route = routeOf(req);
      const status = res.statusCode;
      const seconds = (performance.now() - started) / 1000;
      this.metrics.recordHttpRequest(method, route, status, seconds);
      let traceFields = {};
      if (traced) {
        const { span } = traced;
        if (route !== undefined) {
          span.updateName(`${method} ${route}`);
          span.setAttribute(ATTR_HTTP_ROUTE, route);
        }
        span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
        span.setAttribute(ATTR_SVC_REQUEST_ID, id);
        if (status >= 500) markFailed(span, String(status));
        span.end();
        const { traceId, spanId } = span.spanContext();
        traceFields = { trace_id: traceId, span_id: spanId };
      }
      if (!polled) logAnswered(this.logger.logger, fields, status, seconds * 1000, traceFields);
    });
    // One context for the rest of the request: its span and its log fields together.
    context.with(inRequestScope(traced?.context ?? ROOT_CONTEXT, fields), next);
  }
}
