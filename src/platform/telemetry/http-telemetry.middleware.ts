import { Injectable, type NestMiddleware } from '@nestjs/common';
import { context } from '@opentelemetry/api';
import type { Request, Response } from 'express';
import { performance } from 'node:perf_hooks';
import { Metrics } from './metrics.service.js';
import {
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_SVC_REQUEST_ID,
  ATTR_URL_PATH,
} from './semconv.js';
import { Tracing, markFailed } from './tracing.service.js';

/** Probes and scrapes arrive every few seconds: measured, but not traced. */
function untraced(path: string): boolean {
  return (
    path === '/healthz' ||
    path === '/readyz' ||
    path === '/health' ||
    path === '/metrics' ||
    path.endsWith('/health')
  );
}

/** The route template Express matched (`/v1/runs/:run_id`), never the raw path. */
function routeOf(req: Request): string | undefined {
  const route = (req.route as { path?: unknown } | undefined)?.path;
  return typeof route === 'string' ? `${req.baseUrl}${route}` : undefined;
}

/**
 * The HTTP server span (`METHOD route`, continuing an incoming W3C `traceparent`) and the request
 * duration metric. The rest of the request runs inside the span's context, so run, model, tool
 * and state spans are its children and every log line of the request carries its trace id.
 * Mounted first (TelemetryModule is imported before the logging module).
 */
@Injectable()
export class HttpTelemetryMiddleware implements NestMiddleware {
  constructor(
    private readonly tracing: Tracing,
    private readonly metrics: Metrics,
  ) {}

  use(req: Request, res: Response, next: () => void): void {
    const started = performance.now();
    const method = req.method;
    const path = req.originalUrl.split('?')[0];
    const traced = untraced(path)
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
      this.metrics.recordHttpRequest(method, route, status, (performance.now() - started) / 1000);
      if (!traced) return;
      const { span } = traced;
      if (route !== undefined) {
        span.updateName(`${method} ${route}`);
        span.setAttribute(ATTR_HTTP_ROUTE, route);
      }
      span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
      const requestId = (req as { id?: unknown }).id;
      if (typeof requestId === 'string') span.setAttribute(ATTR_SVC_REQUEST_ID, requestId);
      if (status >= 500) markFailed(span, String(status));
      span.end();
    });
    if (traced) context.with(traced.context, next);
    else next();
  }
}
