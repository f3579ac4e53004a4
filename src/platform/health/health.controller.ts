import { Controller, Get, Inject, Res, ServiceUnavailableException } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import {
  HealthCheckService,
  type HealthCheckResult,
  type HealthIndicatorResult,
} from '@nestjs/terminus';
import type { Response } from 'express';
import { Public } from '../auth/auth.decorators.js';
import type { GatewayConfig } from '../config/gateway-config.js';
import { PACKAGE } from '../config/package-info.js';
import { ResponseSchema } from '../openapi/response-schema.js';
import { StateDatabase } from '../state/state-database.service.js';
import { DatabaseIndicator } from './database.indicator.js';
import { ReadinessChecks } from './readiness-checks.js';
import {
  INFO_SCHEMA,
  LIVENESS_SCHEMA,
  READINESS_SCHEMA,
  VERSION_SCHEMA,
} from './health.schemas.js';
import { SURFACES } from './surfaces.token.js';

const STATE = 'state';

type Details = HealthIndicatorResult;

/** Why the replica is not ready: the state backend's reason, else the first other database's. */
function notReadyReason(details: Details, others: string[]): string {
  if (details[STATE]?.status === 'down') return String(details[STATE].reason);
  const down = others.find((name) => details[name]?.status === 'down');
  return down ? `${down}: ${String(details[down].reason)}` : 'shutting down';
}

/** `{name: {backend, …}}` of the other databases, without Terminus's `status`. */
function otherDatabases(details: Details, others: string[]): Record<string, unknown> {
  return Object.fromEntries(
    others
      .filter((name) => details[name])
      .map((name) => {
        const { status: _status, ...rest } = details[name];
        return [name, rest];
      }),
  );
}

/** The probes (spec section 4; CONTRACT section 8). Kubernetes: liveness /healthz, readiness /readyz. */
@Controller()
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicator: DatabaseIndicator,
    private readonly database: StateDatabase,
    private readonly readiness: ReadinessChecks,
    private readonly config: ConfigService<GatewayConfig, true>,
    @Inject(SURFACES) private readonly surfaces: Readonly<Record<string, string>>,
  ) {}

  /** Liveness: the process answers. Depends on nothing remote, so a backend outage never restarts pods. */
  @Public()
  @Get('healthz')
  @ResponseSchema(LIVENESS_SCHEMA)
  healthz(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /**
   * Readiness: 200 only while the state backend, and every other database the replica serves
   * from (the board's on PostgreSQL, under its own key), answers and is fully migrated.
   */
  @Public()
  @Get('readyz')
  @ResponseSchema(READINESS_SCHEMA, 200, 503)
  async readyz(@Res({ passthrough: true }) res: Response): Promise<Record<string, unknown>> {
    const others = this.readiness.entries();
    const names = others.map(([name]) => name);
    let result: HealthCheckResult;
    try {
      result = await this.health.check([
        () => this.indicator.check(STATE, () => this.database.readiness()),
        ...others.map(
          ([name, check]) =>
            () =>
              this.indicator.check(name, check),
        ),
      ]);
    } catch (error) {
      if (!(error instanceof ServiceUnavailableException)) throw error;
      const { details } = error.getResponse() as HealthCheckResult;
      res.status(503);
      return {
        status: 'not_ready',
        backend: this.database.backend,
        reason: notReadyReason(details, names),
        ...otherDatabases(details, names),
      };
    }
    const { backend, migrations } = result.details[STATE];
    return { status: 'ready', backend, migrations, ...otherDatabases(result.details, names) };
  }

  /** Compatibility alias: the version only. */
  @Public()
  @Get('health')
  @ResponseSchema(VERSION_SCHEMA)
  version(): { version: string } {
    return { version: PACKAGE.version };
  }

  @Get('info')
  @ResponseSchema(INFO_SCHEMA)
  info(): Record<string, unknown> {
    const provider = this.config.get('provider', { infer: true });
    return {
      name: PACKAGE.name,
      version: PACKAGE.version,
      backend: this.database.backend,
      provider: provider.kind,
      model: provider.model ?? null,
      default_tenant: this.config.get('tenancy', { infer: true }).defaultTenant ?? null,
      surfaces: this.surfaces,
    };
  }
}
