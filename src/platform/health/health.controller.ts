import { Controller, Get, Inject, Res, ServiceUnavailableException } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { HealthCheckService, type HealthCheckResult } from '@nestjs/terminus';
import type { Response } from 'express';
import { Public } from '../auth/auth.decorators.js';
import type { GatewayConfig } from '../config/gateway-config.js';
import { PACKAGE } from '../config/package-info.js';
import { StateDatabase } from '../state/state-database.service.js';
import { SURFACES } from './surfaces.token.js';
import { StateBackendIndicator } from './state-backend.indicator.js';

const STATE = 'state';

/** The probes (spec section 4; CONTRACT section 8). Kubernetes: liveness /healthz, readiness /readyz. */
@Controller()
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly stateIndicator: StateBackendIndicator,
    private readonly database: StateDatabase,
    private readonly config: ConfigService<GatewayConfig, true>,
    @Inject(SURFACES) private readonly surfaces: Readonly<Record<string, string>>,
  ) {}

  /** Liveness: the process answers. Depends on nothing remote, so a backend outage never restarts pods. */
  @Public()
  @Get('healthz')
  healthz(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /** Readiness: 200 only while the state backend answers and is fully migrated. */
  @Public()
  @Get('readyz')
  async readyz(@Res({ passthrough: true }) res: Response): Promise<Record<string, unknown>> {
    let result: HealthCheckResult;
    try {
      result = await this.health.check([() => this.stateIndicator.check(STATE)]);
    } catch (error) {
      if (!(error instanceof ServiceUnavailableException)) throw error;
      const failed = (error.getResponse() as HealthCheckResult).details[STATE] ?? {};
      res.status(503);
      return {
        status: 'not_ready',
        backend: this.database.backend,
        reason: failed.reason ?? 'shutting down',
      };
    }
    const { backend, migrations } = result.details[STATE];
    return { status: 'ready', backend, migrations };
  }

  /** Compatibility alias: the version only. */
  @Public()
  @Get('health')
  version(): { version: string } {
    return { version: PACKAGE.version };
  }

  @Get('info')
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
