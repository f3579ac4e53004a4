import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { StateModule } from '../state/state.module.js';
import { HealthController } from './health.controller.js';
import { StateBackendIndicator } from './state-backend.indicator.js';

@Module({
  // Failed readiness is reported in the probe body; logging each failing poll would flood logs.
  imports: [TerminusModule.forRoot({ logger: false }), StateModule],
  controllers: [HealthController],
  providers: [StateBackendIndicator],
})
export class HealthModule {}
