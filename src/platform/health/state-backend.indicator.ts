import { Injectable } from '@nestjs/common';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import { StateDatabase } from '../state/state-database.service.js';

/** Terminus indicator: the state backend answers now and every migration is applied. */
@Injectable()
export class StateBackendIndicator {
  constructor(
    private readonly indicators: HealthIndicatorService,
    private readonly database: StateDatabase,
  ) {}

  async check(key: string): Promise<HealthIndicatorResult> {
    const indicator = this.indicators.check(key);
    const { ready, backend, migrations, reason } = await this.database.readiness();
    return ready ? indicator.up({ backend, migrations }) : indicator.down({ backend, reason });
  }
}
