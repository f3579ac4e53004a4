import { Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { Metrics } from '../../platform/telemetry/metrics.service.js';
import type { RunRecord } from '../record/run-record.js';
import { RunEvents } from './run-events.js';

/** Runs whose start is remembered for their duration; beyond it the oldest is forgotten. */
const TRACKED_RUNS = 10_000;

/**
 * Run metrics from the run lifecycle: `svc_runs_total{status,agent}` for every run that stops
 * here (`paused` included), and `svc_run_duration_seconds` from the moment it started (or was
 * resumed) in this process. A run that stops without settling (its lease was lost) is forgotten
 * once TRACKED_RUNS newer runs have started.
 */
@Injectable()
export class RunMetrics implements OnModuleInit, OnModuleDestroy {
  private readonly started = new Map<string, number>();
  private unsubscribe?: () => void;

  constructor(
    private readonly events: RunEvents,
    private readonly metrics: Metrics,
  ) {}

  onModuleInit(): void {
    this.unsubscribe = this.events.subscribe({
      runStarted: (record) => this.runStarted(record),
      runSettled: (record) => this.runSettled(record),
    });
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
  }

  private runStarted(record: Readonly<RunRecord>): void {
    const key = keyOf(record);
    this.started.delete(key);
    this.started.set(key, performance.now());
    if (this.started.size > TRACKED_RUNS) {
      const oldest = this.started.keys().next().value;
      if (oldest !== undefined) this.started.delete(oldest);
    }
  }

  private runSettled(record: Readonly<RunRecord>): void {
    const key = keyOf(record);
    const startedAt = this.started.get(key);
    this.started.delete(key);
    const seconds = startedAt === undefined ? undefined : (performance.now() - startedAt) / 1000;
    this.metrics.recordRun(record.status, record.agent, seconds);
  }
}

function keyOf(record: Readonly<RunRecord>): string {
  return `${record.tenant_id}\u0000${record.run_id}`;
}
