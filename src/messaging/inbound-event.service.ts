import { type BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { GatewayConfig } from '../platform/config/gateway-config.js';
import { ProblemException } from '../platform/http/problem.js';
import type { RunStatus } from '../runs/record/run-record.js';
import { ChannelRegistry } from './channel-registry.js';
import type { InboundEvent } from './channels.js';
import { conversationSessionId, messageId } from './message-ids.js';
import type { NewOutboxEntry, OutboxEntry, OutboxStatus } from './outbox-entry.js';
import { OutboxStore } from './outbox.store.js';
import { OutboxWorker, waitAtMost } from './outbox-worker.service.js';
import { ReplyProducer } from './reply-producer.service.js';

/** The webhook's answer for a message event. */
export interface WebhookAccepted {
  ok: true;
  duplicate: boolean;
  id: string;
  event_id: string;
  run_id: string;
  session_id: string;
  status: OutboxStatus;
  /** With `?wait=true`: the reply and how the run ended. */
  reply?: string | null;
  run_status?: RunStatus;
}

function answer(entry: NewOutboxEntry | OutboxEntry, duplicate: boolean): WebhookAccepted {
  return {
    ok: true,
    duplicate,
    id: entry.id,
    event_id: entry.eventId,
    run_id: entry.id,
    session_id: entry.sessionId,
    status: 'status' in entry ? entry.status : 'running',
  };
}

/**
 * Accepts chat events exactly once. The outbox entry is written before anything runs, in one
 * insert keyed by (tenant, channel, event id): a repeated event, on any replica, finds it and
 * answers `duplicate: true` without running. A new event's agent run then goes on in the
 * background (chat systems give a webhook about 3 s), or in the request with `?wait=true`; its
 * reply goes to the outbox and straight on to delivery.
 */
@Injectable()
export class InboundEventService implements BeforeApplicationShutdown {
  private readonly logger = new Logger(InboundEventService.name);
  private readonly background = new Set<Promise<unknown>>();
  private readonly shutdownWaitMs: number;
  private stopping = false;

  constructor(
    private readonly outbox: OutboxStore,
    private readonly channels: ChannelRegistry,
    private readonly producer: ReplyProducer,
    private readonly worker: OutboxWorker,
    config: ConfigService<GatewayConfig, true>,
  ) {
    this.shutdownWaitMs = config.get('server', { infer: true }).shutdownTimeoutMs;
  }

  async accept(
    event: InboundEvent,
    options: { actor: string; wait: boolean },
  ): Promise<WebhookAccepted> {
    if (this.stopping) {
      // The chat system retries; another replica (or this one, restarted) takes it.
      throw new ProblemException(503, 'the gateway is shutting down', 'shutting-down');
    }
    if (!this.channels.get(event.channel).configured) {
      throw new ProblemException(
        422,
        `channel ${event.channel} has no webhook configured (SVC_${event.channel.toUpperCase()}_WEBHOOK)`,
        'channel-not-configured',
      );
    }
    const entry: NewOutboxEntry = {
      tenantId: event.tenantId,
      id: messageId(event.channel, event.eventId),
      channel: event.channel,
      conversationId: event.conversationId,
      eventId: event.eventId,
      user: event.user,
      text: event.text,
      sessionId: conversationSessionId(event.channel, event.conversationId),
      actor: options.actor,
    };
    if (!(await this.outbox.accept(entry, this.producer.recoverAfterMs))) {
      const existing = await this.outbox.get(entry.tenantId, entry.id);
      return {
        ...answer(existing ?? entry, true),
        ...(options.wait && existing ? { reply: existing.reply } : {}),
      };
    }
    const work = this.produceAndDeliver(entry);
    if (!options.wait) {
      this.track(work);
      return answer(entry, false);
    }
    const produced = await work;
    return {
      ...answer(produced?.entry ?? entry, false),
      reply: produced?.entry.reply ?? null,
      ...(produced ? { run_status: produced.runStatus } : {}),
    };
  }

  /** Never rejects: a failure leaves the entry `running`, and the worker recovers it. */
  private async produceAndDeliver(entry: NewOutboxEntry) {
    try {
      const produced = await this.producer.produce(entry, true);
      if (produced) this.worker.deliverNow(produced);
      return produced;
    } catch (error) {
      this.logger.warn({ err: error }, `event ${entry.id} left for recovery`);
      return null;
    }
  }

  private track(work: Promise<unknown>): void {
    this.background.add(work);
    void work.finally(() => this.background.delete(work));
  }

  /**
   * Stop accepting, then let background runs finish (bounded) while the pool is still open.
   * Nest calls this before the OutboxWorker's hook (a consumer's hooks run before its
   * dependencies'), so replies produced now are still delivered before the worker stops.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    await waitAtMost([...this.background], this.shutdownWaitMs);
  }
}
