import { Injectable, type OnModuleInit } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { TaskPushNotificationConfig } from '@a2a-js/sdk';
import {
  PushNotificationNotSupportedError,
  RequestMalformedError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '@a2a-js/sdk/errors';
import type { GatewayConfig } from '../platform/config/gateway-config.js';
import { classifyError } from '../platform/http/classify-error.js';
import { type RunRecord, TERMINAL_STATUSES } from '../runs/record/run-record.js';
import type { WebhookTarget } from '../runs/webhooks/run-webhook.store.js';
import { RunWebhooks } from '../runs/webhooks/run-webhooks.service.js';
import { a2aSdk } from '../tools/a2a/a2a-sdk.js';
import { toTask } from './task-shapes.js';

/** The one push configuration a task has (a run has one webhook). */
const CONFIG_ID = 'default';
const TOKEN_HEADER = 'x-a2a-notification-token';

/**
 * A2A push notifications as run webhooks: the durable outbox (retries, one delivery across
 * replicas, the tenant egress policy, Standard Webhooks signatures with SVC_RUN_WEBHOOK_SECRET),
 * with the task as the payload (a v1 `StreamResponse`, as the SDK's own sender writes it) and
 * the client's token in `X-A2A-Notification-Token`. A task is notified once, when it ends.
 */
@Injectable()
export class A2APushNotifications implements OnModuleInit {
  readonly enabled: boolean;

  constructor(
    private readonly webhooks: RunWebhooks,
    config: ConfigService<GatewayConfig, true>,
  ) {
    this.enabled = config.get('runEvents', { infer: true }).webhookSecret !== undefined;
  }

  onModuleInit(): void {
    this.webhooks.useFormat('a2a', async (run, hook) => {
      const { StreamResponse } = await a2aSdk.load();
      return {
        payload: StreamResponse.toJSON({ payload: { $case: 'task', value: toTask(run) } }),
        ...(hook.token ? { headers: { [TOKEN_HEADER]: hook.token } } : {}),
      };
    });
  }

  /** The webhook target of a push configuration, checked as a run webhook's URL is. */
  target(
    config: Pick<TaskPushNotificationConfig, 'url' | 'token' | 'authentication'>,
  ): WebhookTarget {
    if (!this.enabled) {
      throw new PushNotificationNotSupportedError(
        'this gateway signs push notifications with SVC_RUN_WEBHOOK_SECRET, which is not set',
      );
    }
    if (config.authentication?.scheme) {
      throw new RequestMalformedError(
        'push authentication schemes are not supported; the token (X-A2A-Notification-Token) and the webhook signature identify the gateway',
      );
    }
    try {
      this.webhooks.check(config.url, 'url');
    } catch (error) {
      // The reason (a scheme other than http(s), an address the egress policy refuses) is the
      // problem's detail, as a run webhook's refusal says it.
      throw new RequestMalformedError(classifyError(error)?.detail ?? 'the url is refused');
    }
    return { url: config.url, format: 'a2a', token: config.token || null };
  }

  /** Sets the task's push configuration; a task that already ended is notified at once. */
  async configure(
    run: RunRecord,
    config: TaskPushNotificationConfig,
  ): Promise<TaskPushNotificationConfig> {
    const target = this.target(config);
    if (!(await this.webhooks.configure(run.tenant_id, run.run_id, target))) {
      throw new UnsupportedOperationError(
        `task ${JSON.stringify(run.run_id)} has already been notified`,
      );
    }
    if (TERMINAL_STATUSES.has(run.status)) this.webhooks.due(run);
    return this.view(run.run_id, target);
  }

  async get(tenantId: string, taskId: string): Promise<TaskPushNotificationConfig | null> {
    const hook = await this.webhooks.find(tenantId, taskId);
    return hook?.format === 'a2a' ? this.view(taskId, hook) : null;
  }

  async require(tenantId: string, taskId: string, id: string): Promise<TaskPushNotificationConfig> {
    const found = await this.get(tenantId, taskId);
    if (!found || (id && id !== CONFIG_ID)) {
      throw new TaskNotFoundError(
        `task ${JSON.stringify(taskId)} has no push configuration ${JSON.stringify(id)}`,
      );
    }
    return found;
  }

  remove(tenantId: string, taskId: string): Promise<boolean> {
    return this.webhooks.remove(tenantId, taskId);
  }

  private view(taskId: string, target: WebhookTarget): TaskPushNotificationConfig {
    return {
      tenant: '',
      id: CONFIG_ID,
      taskId,
      url: target.url,
      token: target.token ?? '',
      authentication: undefined,
    };
  }
}
