import { type BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Response } from 'express';
import type { GatewayConfig } from '../../platform/config/gateway-config.js';
import { EventStream } from '../../platform/http/event-stream.js';
import { LinkedAbort } from '../../platform/signals/linked-abort.js';
import { classifyError } from '../../platform/http/classify-error.js';
import { problemTitle, problemType } from '../../platform/http/problem.js';
import { TERMINAL_STATUSES } from '../record/run-record.js';
import { RunRecordStore } from '../record/run-record.store.js';
import { LAST_EVENT, type RunEvent } from './run-event.js';
import { RunEventFeed } from './run-event-feed.js';
import { RunEventStore } from './run-event.store.js';

/** A settled run whose log has no settled event (pruned, or older than the log) ends after this. */
const SETTLED_GRACE_MS = 5_000;

/** One page of a run's log (GET /v1/runs/{id}/events without a stream). */
export interface RunEventPage {
  run_id: string;
  events: RunEvent[];
  /** The id to pass as `after` (or `Last-Event-ID`) for the next page. */
  last_event_id: number;
  /** True once the page holds the run's last event. */
  done: boolean;
}

/**
 * Serves a run's event log to clients: as `text/event-stream` from any point (`Last-Event-ID`)
 * to the run's last event, live as it is written on any replica; or as pages of JSON.
 */
@Injectable()
export class RunStreams implements BeforeApplicationShutdown {
  private readonly logger = new Logger(RunStreams.name);
  private readonly heartbeatMs: number;
  /** Open streams: ended when the process begins to shut down. */
  private readonly open = new Set<LinkedAbort>();

  constructor(
    private readonly feed: RunEventFeed,
    private readonly store: RunEventStore,
    private readonly records: RunRecordStore,
    config: ConfigService<GatewayConfig, true>,
  ) {
    this.heartbeatMs = config.get('runEvents', { infer: true }).heartbeatMs;
  }

  /** Whether the run exists for this tenant (a record, or a log). */
  async exists(tenantId: string, runId: string): Promise<boolean> {
    if (await this.records.get(tenantId, runId)) return true;
    return (await this.store.lastId(tenantId, runId)) > 0;
  }

  /** Streams the run's events after `after` until its last event or until the client leaves. */
  async stream(
    tenantId: string,
    runId: string,
    after: number,
    response: Response,
    headers: Record<string, string> = {},
  ): Promise<void> {
    const stream = new EventStream(response, this.heartbeatMs);
    stream.open(headers);
    // Ends when the client leaves, the run settles without a last event, or the drain begins.
    const stop = new LinkedAbort([stream.closed]);
    this.open.add(stop);
    const { signal } = stop;
    const watch = this.endWhenSettledWithoutEvent(tenantId, runId, stop);
    try {
      for await (const batch of this.feed.follow(tenantId, runId, after, signal)) {
        watch.sawEvents();
        for (const event of batch) {
          await stream.send(event.id, event.type, event);
          if (event.type === LAST_EVENT) return;
        }
      }
    } catch (error) {
      this.logger.warn(`the event stream of run ${runId} failed: ${String(error)}`);
      // Headers are sent: the problem goes as the stream's last event.
      const problem = classifyError(error) ?? { status: 500, detail: 'the stream failed' };
      await stream.send(null, 'error', {
        type: problemType(problem.status, problem.slug),
        title: problemTitle(problem.status),
        status: problem.status,
        detail: problem.detail,
      });
    } finally {
      this.open.delete(stop);
      stop.unlink();
      watch.cancel();
      stream.end();
    }
  }

  /**
   * The drain begins: open streams end now (a client resumes on another replica with its
   * Last-Event-ID) rather than hold the HTTP server open until the drain runs out.
   */
  beforeApplicationShutdown(): void {
    for (const stop of this.open) stop.abort();
  }

  /** The run's events after `after`, at most `limit`. */
  async page(tenantId: string, runId: string, after: number, limit: number): Promise<RunEventPage> {
    const events = await this.store.after(tenantId, runId, after, limit);
    return {
      run_id: runId,
      events,
      last_event_id: events.at(-1)?.id ?? after,
      done: events.some((event) => event.type === LAST_EVENT),
    };
  }

  /**
   * A stream waits for the run's last event; a run that settled without one in its log (the log
   * was pruned, or the run is older than logs) would keep it open forever: ended instead.
   */
  private endWhenSettledWithoutEvent(tenantId: string, runId: string, stop: LinkedAbort) {
    let quietSince = Date.now();
    const timer = setInterval(() => {
      if (Date.now() - quietSince < SETTLED_GRACE_MS) return;
      void this.records
        .get(tenantId, runId)
        .then((run) => {
          const ended = run?.ended_at ? Date.parse(run.ended_at) : Number.NaN;
          if (run && TERMINAL_STATUSES.has(run.status) && Date.now() - ended > SETTLED_GRACE_MS)
            stop.abort();
        })
        .catch(() => undefined);
    }, SETTLED_GRACE_MS);
    timer.unref();
    return {
      sawEvents: () => (quietSince = Date.now()),
      cancel: () => clearInterval(timer),
    };
  }
}
