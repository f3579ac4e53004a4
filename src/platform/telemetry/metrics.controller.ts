import { Controller, ForbiddenException, Get, Header } from '@nestjs/common';
import { ApiOperation } from '../openapi/api-decorators.js';
import { CurrentPrincipal, Public, RequirePermissions } from '../auth/auth.decorators.js';
import type { Principal } from '../auth/principal.js';
import { Metrics, PROMETHEUS_CONTENT_TYPE } from './metrics.service.js';

/**
 * `GET /metrics` in the Prometheus text format. It needs a key with `metrics:read` that is not
 * bound to a tenant: the figures cover every tenant, and agent and toolset names are labels.
 * Prometheus sends the key as a bearer token (`authorization` in its scrape config).
 */
@Controller()
export class MetricsController {
  constructor(private readonly metrics: Metrics) {}

  @RequirePermissions('metrics:read')
  @Get('metrics')
  @ApiOperation({
    summary: 'Prometheus metrics of this replica',
    description: 'The key must not be bound to a tenant: the figures cover every tenant.',
  })
  @Header('Content-Type', PROMETHEUS_CONTENT_TYPE)
  @Header('Cache-Control', 'no-store')
  scrape(@CurrentPrincipal() principal: Principal): Promise<string> {
    if (principal.tenantId !== undefined) {
      throw new ForbiddenException('metrics cover every tenant; use a key without a tenant');
    }
    return this.metrics.scrape();
  }
}

/** The same route without a key (SVC_METRICS_PUBLIC=true): for a scraper inside the network. */
@Public()
@Controller()
export class PublicMetricsController extends MetricsController {}
