import {
  type BeforeApplicationShutdown,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { AuditSink } from '../platform/audit/audit-sink.js';
import type { GatewayConfig } from '../platform/config/gateway-config.js';
import { ServingSignal } from '../platform/http/serving-signal.js';
import { OutageLog } from '../platform/logging/outage-log.js';
import { DeploymentMark } from '../platform/state/deployment-mark.js';
import { LeaseKeeper } from '../platform/state/lease-keeper.service.js';
import { ChannelRegistry } from './channel-registry.js';
import { deliveryDelayMs } from '../platform/http/delivery-backoff.js';
import { deliveryKey } from './message-ids.js';
import type { AttemptResult, OutboxEntry } from './outbox-entry.js';
import { OutboxStore } from './outbox.store.js';
import { type ProducedReply, ReplyProducer } from './reply-producer.service.js';

/** Entries one replica works on at once. */
const MAX_IN_FLIGHT = 16;
/** Delivered and failed entries are kept this long (they are also the events' dedupe records). */
export const OUTBOX_RETENTION_MS = 7 * 24 * 60 * 60_000;
const PRUNE_EVERY_MS = 60 * 60_000;

/**
 * Delivers the outbox. Every replica polls for entries that are due (SVC_OUTBOX_POLL_MS). A
 * pending entry is claimed for one attempt by one conditional statement (OutboxStore.claim, due
 * again only after ReplyProducer.claimMs), so one replica attempts it at a time; a reply
 * produced here comes claimed and is delivered at once, without a write before its attempt. An
 * entry left `running` is run again under a lease (`outbox:<id>`). A failed attempt on 429,
 * 5xx or a network error is retried with backoff (or after Retry-After) up to
 * SVC_OUTBOX_MAX_ATTEMPTS, then the entry is `failed` and audited. An entry left `running`
 * (its process stopped mid-run) is run again through the idempotent runner. Nothing here throws
 * out of the timer; at shutdown polling stops and work in flight is awaited.
 */
@Injectable()
export class OutboxWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(OutboxWorker.name);
  private readonly pollMs: number;
  private readonly maxAttempts: number;
  private readonly retryBaseMs: number;
  private readonly shutdownWaitMs: number;
  private readonly inFlight = new Map<string, Promise<void>>();
  private timer?: NodeJS.Timeout;
  private stopped = false;
  private lastPrune = 0;
  /** A backend outage is logged when it starts and when polling works again, not every poll. */
  private readonly outage = new OutageLog(this.logger, 'outbox poll');

  constructor(
    private readonly outbox: OutboxStore,
    private readonly channels: ChannelRegistry,
    private readonly leases: LeaseKeeper,
    private readonly producer: ReplyProducer,
    private readonly audit: AuditSink,
    private readonly serving: ServingSignal,
    private readonly mark: DeploymentMark,
    config: ConfigService<GatewayConfig, true>,
  ) {
    const messaging = config.get('messaging', { infer: true });
    this.pollMs = messaging.outboxPollMs;
    this.maxAttempts = messaging.outboxMaxAttempts;
    this.retryBaseMs = messaging.outboxRetryBaseMs;
    this.shutdownWaitMs = config.get('server', { infer: true }).shutdownTimeoutMs;
  }

  /**
   * Polls once the process serves HTTP (ServingSignal). `svc run` builds the same modules as a
   * context without a server, and a one-off CLI run must not deliver or recover other messages;
   * nor may a `svc serve` that could not listen.
   */
  onApplicationBootstrap(): void {
    this.serving.whenServing(() => this.schedule());
  }

  /** Runs before the HTTP server and the pool close: stop polling, let work in flight finish. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await waitAtMost([...this.inFlight.values()], this.shutdownWaitMs);
  }

  /** Delivers a reply produced here at once, without waiting for the next poll. */
  deliverNow(produced: ProducedReply): void {
    if (!this.stopped) void this.start(produced.entry, () => this.deliver(produced));
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.poll().finally(() => this.schedule());
    }, this.pollMs);
    this.timer.unref();
  }

  /** One poll: prune now and then, then start work on due entries. Never throws. */
  async poll(): Promise<void> {
    try {
      if (Date.now() - this.lastPrune >= PRUNE_EVERY_MS) {
        this.lastPrune = Date.now();
        const pruned = await this.outbox.prune(OUTBOX_RETENTION_MS);
        if (pruned > 0) this.logger.log(`pruned ${pruned} finished outbox entries`);
      }
      const room = MAX_IN_FLIGHT - this.inFlight.size;
      if (room <= 0) return;
      // Ask for a few more than there is room for: some may be in flight here already.
      for (const entry of await this.outbox.due(room + this.inFlight.size)) {
        if (this.stopped || this.inFlight.size >= MAX_IN_FLIGHT) break;
        void this.start(entry, () => this.handle(entry));
      }
      this.outage.succeeded();
    } catch (error) {
      this.outage.failed(error);
    }
  }

  /** Runs `handle` for an entry unless work on it is in flight here; never rejects. */
  private start(entry: OutboxEntry, handle: () => Promise<void>): Promise<void> {
    const key = `${entry.tenantId}\n${entry.id}`;
    const running = this.inFlight.get(key);
    if (running) return running;
    const work = handle()
      .catch((error: unknown) =>
        this.logger.warn({ err: error }, `outbox entry ${entry.id} failed`),
      )
      .finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, work);
    return work;
  }

  /** A due entry the poll found: a pending one is attempted, a running one run again. */
  private async handle(seen: OutboxEntry): Promise<void> {
    if (seen.status === 'pending') {
      await this.deliver({ entry: seen, claimed: false });
      return;
    }
    const lease = await this.leases.acquire(seen.tenantId, `outbox:${seen.id}`);
    if (!lease) return; // another replica (or request) works on it
    try {
      const entry = await this.outbox.get(seen.tenantId, seen.id);
      // Changed since we saw it: someone else acted on it, and it is not due before it says.
      if (entry?.status !== 'running' || entry.attempts !== seen.attempts) return;
      const produced = await this.producer.produce(entry);
      if (produced) await this.deliver(produced);
    } finally {
      await lease.release();
    }
  }

  /** One attempt at a pending entry, claimed first unless it came claimed for this process. */
  private async deliver({ entry, claimed }: Pick<ProducedReply, 'entry' | 'claimed'>) {
    const mine = claimed
      ? entry
      : await this.outbox.claim(entry.tenantId, entry.id, entry.attempts, this.producer.claimMs);
    // Null: another replica claimed or attempted it since it was seen.
    if (mine) await this.attempt(mine);
  }

  private async attempt(entry: OutboxEntry): Promise<void> {
    const outcome = await this.channels
      .get(entry.channel)
      .deliver(entry.reply ?? '', deliveryKey(entry.tenantId, entry.id), await this.mark.headers());
    const attempt = entry.attempts + 1;
    // The chat system's own words are for the operator's log; the entry keeps the reason only.
    const said = !outcome.ok && outcome.upstream ? ` (upstream: ${outcome.upstream})` : '';
    let result: AttemptResult;
    if (outcome.ok) {
      result = { kind: 'delivered' };
    } else if (outcome.retryable && attempt < this.maxAttempts) {
      const delayMs = deliveryDelayMs(attempt, this.retryBaseMs, outcome.retryAfterMs);
      result = { kind: 'retry', delayMs, error: outcome.error };
      this.logger.warn(
        `delivery of ${entry.id} to ${entry.channel} failed (attempt ${attempt}): ${outcome.error}${said}; retrying in ${delayMs} ms`,
      );
    } else {
      result = { kind: 'failed', error: outcome.error };
    }
    const recorded = await this.outbox.recordAttempt(
      entry.tenantId,
      entry.id,
      entry.attempts,
      result,
    );
    if (recorded && result.kind === 'failed') {
      this.logger.warn(
        `delivery of ${entry.id} to ${entry.channel} failed for good: ${result.error}${said}`,
      );
      this.audit.record({
        kind: 'messaging.delivery_failed',
        tenantId: entry.tenantId,
        actor: entry.actor,
        details: {
          id: entry.id,
          channel: entry.channel,
          conversation_id: entry.conversationId,
          event_id: entry.eventId,
          attempts: attempt,
          error: result.error,
        },
      });
    }
  }
}

/** Resolves when every promise settled or after `ms`, whichever comes first. */
export async function waitAtMost(work: Promise<unknown>[], ms: number): Promise<void> {
  if (work.length === 0) return;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  await Promise.race([Promise.allSettled(work), timeout]);
  clearTimeout(timer);
}
