import type { Message, SendMessageRequest, TaskPushNotificationConfig } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import { type RunRequest, withRunId } from '../runs/run-request.js';
import type { WebhookTarget } from '../runs/webhooks/run-webhook.store.js';
import type { A2ACaller } from './a2a-caller.js';
import { messageText } from './task-shapes.js';

const ID = /^[A-Za-z0-9_.:-]{1,200}$/;

/** What every task's run takes from the gateway: its turn bound, its webhook. */
export interface TaskRunOptions {
  maxTurns: number;
  /** A push configuration as the run's webhook target (checked: A2APushNotifications). */
  webhook: (push: TaskPushNotificationConfig) => WebhookTarget;
}

export function requireMessage(params: SendMessageRequest): Message {
  if (!params.message) throw new RequestMalformedError('message is required');
  return params.message;
}

/**
 * The run a new message starts: the URL's agent, the message's text as its prompt,
 * `contextId` its session. A resent message (same `messageId`, the run id) answers the task it
 * started; the message's push configuration becomes the run's webhook, in A2A's format.
 */
export function taskRunRequest(
  caller: A2ACaller,
  tenantId: string,
  message: Message,
  params: SendMessageRequest,
  options: TaskRunOptions,
): RunRequest & { runId: string } {
  const text = messageText(message);
  if (!text.trim()) throw new RequestMalformedError('the message has no text part');
  const push = params.configuration?.taskPushNotificationConfig;
  if (message.contextId && !ID.test(message.contextId)) {
    throw new RequestMalformedError('contextId may only hold letters, digits and _ . : -');
  }
  // A message id that cannot be a run id: the run gets one of its own, made here.
  return withRunId({
    tenantId,
    agent: caller.agent,
    toolset: caller.toolset,
    input: [{ role: 'user', content: text }],
    ...(ID.test(message.messageId) && { runId: message.messageId }),
    ...(message.contextId && { sessionId: message.contextId }),
    maxTurns: options.maxTurns,
    multitask: 'enqueue',
    ...(params.metadata &&
      Object.keys(params.metadata).length > 0 && { metadata: params.metadata }),
    ...(push?.url && { webhook: options.webhook(push) }),
    actor: caller.principal.keyId,
    origin: 'a2a',
  });
}
