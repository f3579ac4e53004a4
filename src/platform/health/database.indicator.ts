import { Injectable } from '@nestjs/common';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import type { ReadinessCheck } from './readiness-checks.js';

/**
 * Terminus indicator of one database (the state backend, the board's): it answers now and
 * every migration is applied.
 */
@Injectable()
export class DatabaseIndicator {
  constructor(private readonly indicators: HealthIndicatorService) {}

  async check(key: string, readiness: ReadinessCheck): Promise<HealthIndicatorResult> {
    const indicator = this.indicators.check(key);
    const { ready, backend, migrations, reason } = await readiness();
    return ready ? indicator.up({ backend, migrations }) : indicator.down({ backend, reason });
  }
}
