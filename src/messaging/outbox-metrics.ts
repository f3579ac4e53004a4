import { Injectable, type OnModuleInit } from '@nestjs/common';
import { Metrics } from '../platform/telemetry/metrics.service.js';
import { OutboxStore } from './outbox.store.js';

/**
 * The outbox on /metrics: how many replies wait, how long the oldest has waited, how many failed.
 * Read from the shared table at scrape time, so every replica reports the same (global) figures.
 */
@Injectable()
export class OutboxMetrics implements OnModuleInit {
  constructor(
    private readonly metrics: Metrics,
    private readonly outbox: OutboxStore,
  ) {}

  onModuleInit(): void {
    this.metrics.observeGauge(
      'svc_outbox_depth',
      'Replies waiting in the outbox for delivery, by status',
      async () => {
        const stats = await this.outbox.stats();
        return [
          { value: stats.pending, attributes: { status: 'pending' } },
          { value: stats.running, attributes: { status: 'running' } },
        ];
      },
    );
    this.metrics.observeGauge(
      'svc_outbox_oldest_pending_age_seconds',
      'Age of the oldest reply waiting for delivery (0 when none waits)',
      async () => ((await this.outbox.stats()).oldestPendingAgeMs ?? 0) / 1000,
    );
    this.metrics.observeGauge(
      'svc_outbox_failed',
      'Replies given up after the last delivery attempt (kept for 7 days)',
      async () => (await this.outbox.stats()).failed,
    );
  }
}
