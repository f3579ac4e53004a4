import { randomUUID } from 'node:crypto';
import { type Message, Role, type SendMessageRequest, type Task } from '@a2a-js/sdk';
import {
  type Client,
  ClientFactory,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from '@a2a-js/sdk/client';

/** A fetch that sends the gateway key (and a tenant, for an unbound key) on every request. */
export function keyedFetch(key: string, headers: Record<string, string> = {}): typeof fetch {
  return (input, init) => {
    const merged = new Headers(init?.headers);
    merged.set('Authorization', `Bearer ${key}`);
    for (const [name, value] of Object.entries(headers)) merged.set(name, value);
    return fetch(input, { ...init, headers: merged });
  };
}

/**
 * The official `@a2a-js/sdk` client of one agent, made from its card at
 * `{gateway}/a2a/{agent}/.well-known/agent-card.json`, as an A2A caller would make it, over
 * the JSON-RPC binding or the HTTP+JSON one.
 */
export function a2aClient(
  gatewayUrl: string,
  agent: string,
  fetchImpl: typeof fetch,
  binding: 'JSONRPC' | 'HTTP+JSON' = 'JSONRPC',
): Promise<Client> {
  const factory = new ClientFactory({
    transports: [
      binding === 'JSONRPC'
        ? new JsonRpcTransportFactory({ fetchImpl })
        : new RestTransportFactory({ fetchImpl }),
    ],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
  });
  return factory.createFromUrl(`${gatewayUrl}/a2a/${agent}/`);
}

/** A user's text message (and, for a follow-up, data parts), as the protocol spells it. */
export function userMessage(
  text: string,
  extra: Partial<Message> & { data?: object } = {},
): Message {
  const { data, ...rest } = extra;
  return {
    messageId: randomUUID(),
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    parts: [
      { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' },
      ...(data
        ? [
            {
              content: { $case: 'data' as const, value: data },
              metadata: undefined,
              filename: '',
              mediaType: '',
            },
          ]
        : []),
    ],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
    ...rest,
  };
}

/** `SendMessage` params around a message. */
export function sendParams(
  message: Message,
  configuration: Partial<NonNullable<SendMessageRequest['configuration']>> = {},
): SendMessageRequest {
  return {
    tenant: '',
    message,
    configuration: {
      acceptedOutputModes: [],
      taskPushNotificationConfig: undefined,
      returnImmediately: false,
      ...configuration,
    },
    metadata: undefined,
  };
}

/** The text of a task's `answer` artifact. */
export function answerOf(task: Task): string {
  return (task.artifacts.find((artifact) => artifact.artifactId === 'answer')?.parts ?? [])
    .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
    .join('');
}

export function isTask(result: Message | Task): result is Task {
  return 'status' in result;
}
