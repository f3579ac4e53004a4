import { Module } from '@nestjs/common';
import { StateModule } from '../platform/state/state.module.js';
import { UsageModule } from '../usage/usage.module.js';
import { CancelController } from './cancel/cancel.controller.js';
import { RunCancels } from './cancel/run-cancels.service.js';
import { RunEventFeed } from './events/run-event-feed.js';
import { RunEventLog } from './events/run-event-log.js';
import { RunEventStore } from './events/run-event.store.js';
import { RunEventsController } from './events/run-events.controller.js';
import { RunStreams } from './events/run-streams.js';
import { RunEvents } from './lifecycle/run-events.js';
import { RunLeases } from './lifecycle/run-lease.js';
import { RunLifecycle } from './lifecycle/run-lifecycle.js';
import { RunMetrics } from './lifecycle/run-metrics.observer.js';
import { RunSpending } from './lifecycle/run-spending.js';
import { RunTracing } from './lifecycle/run-tracing.service.js';
import { RunWaiter } from './lifecycle/run-waiter.js';
import { RunRecordStore } from './record/run-record.store.js';
import { RunsController } from './runs.controller.js';
import { RunSpansController } from './spans/run-spans.controller.js';
import { RunWebhookStore } from './webhooks/run-webhook.store.js';
import { RunWebhooks } from './webhooks/run-webhooks.service.js';

/**
 * What every kind of run shares: run records (`GET /v1/runs/{id}`, long-polled with `?wait=`),
 * the run leases, the lifecycle (events, tracing, metrics, audit) that plain and graph execution
 * both go through, the run event log and its streams (`GET /v1/runs/{id}/events`), the spans
 * this replica kept of a run (`GET /v1/runs/{id}/spans`), and cancellation (`POST /v1/runs/{id}/cancel`) and run webhooks.
 */
@Module({
  imports: [StateModule, UsageModule],
  controllers: [RunsController, RunEventsController, RunSpansController, CancelController],
  providers: [
    RunRecordStore,
    RunSpending,
    RunEvents,
    RunMetrics,
    RunTracing,
    RunLifecycle,
    RunLeases,
    RunWaiter,
    RunEventStore,
    RunEventFeed,
    RunEventLog,
    RunStreams,
    RunCancels,
    RunWebhookStore,
    RunWebhooks,
  ],
  exports: [
    RunRecordStore,
    RunSpending,
    RunEvents,
    RunLifecycle,
    RunLeases,
    RunEventFeed,
    RunEventLog,
    RunStreams,
    RunCancels,
    RunWebhooks,
  ],
})
export class RunsModule {}
