import { type DynamicModule, Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { StateModule } from '../state/state.module.js';
import { HealthController } from './health.controller.js';
import { SURFACES } from './surfaces.token.js';
import { DatabaseIndicator } from './database.indicator.js';
import { ReadinessModule } from './readiness.module.js';

/** The probes and /info; `surfaces` is what /info lists as mounted. */
@Module({})
export class HealthModule {
  static forRoot(surfaces: Readonly<Record<string, string>>): DynamicModule {
    return {
      module: HealthModule,
      // Failed readiness is reported in the probe body; logging each failing poll would flood logs.
      imports: [TerminusModule.forRoot({ logger: false }), StateModule, ReadinessModule],
      controllers: [HealthController],
      providers: [DatabaseIndicator, { provide: SURFACES, useValue: surfaces }],
    };
  }
}
