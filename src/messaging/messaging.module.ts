import { type DynamicModule, Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { AgentModule } from '../runs/agent.module.js';
import { RunsModule } from '../runs/runs.module.js';
import type { GatewayConfig, MessagingConfig } from '../platform/config/gateway-config.js';
import { StateModule } from '../platform/state/state.module.js';
import { ChannelRegistry } from './channel-registry.js';
import { InboundEventService } from './inbound-event.service.js';
import { messagingController } from './messaging.controller.js';
import { OutboxMetrics } from './outbox-metrics.js';
import { OutboxStore } from './outbox.store.js';
import { OutboxWorker } from './outbox-worker.service.js';
import { ReplyProducer } from './reply-producer.service.js';
import { SettledReplies } from './settled-replies.js';
import { SlackWebhookAdapter } from './slack-webhook.adapter.js';
import { TeamsWebhookAdapter } from './teams-webhook.adapter.js';
import { TypeormOutboxStore } from './typeorm-outbox.store.js';

/**
 * Team chat (CONTRACT section 7): the inbound webhook, the `chata` (Slack) and `chatb` (Teams)
 * adapters, and the durable outbox with its delivery worker. Agents run only through
 * AgentRunner.
 */
@Module({})
export class MessagingModule {
  static forRoot(messaging: Pick<MessagingConfig, 'secret'>): DynamicModule {
    return {
      module: MessagingModule,
      imports: [StateModule, AgentModule, RunsModule],
      controllers: [messagingController(messaging.secret !== undefined)],
      providers: [
        { provide: OutboxStore, useClass: TypeormOutboxStore },
        OutboxMetrics,
        {
          provide: ChannelRegistry,
          inject: [ConfigService],
          useFactory: (config: ConfigService<GatewayConfig, true>) => {
            const { chataWebhook, chatbWebhook } = config.get('messaging', { infer: true });
            return new ChannelRegistry([
              new SlackWebhookAdapter(chataWebhook),
              new TeamsWebhookAdapter(chatbWebhook),
            ]);
          },
        },
        ReplyProducer,
        SettledReplies,
        OutboxWorker,
        InboundEventService,
      ],
    };
  }
}
