import { Module } from '@nestjs/common';
import { ReadinessChecks } from './readiness-checks.js';

/** The registry of extra readiness checks: features add to it, the health module reads it. */
@Module({ providers: [ReadinessChecks], exports: [ReadinessChecks] })
export class ReadinessModule {}
