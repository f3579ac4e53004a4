import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { AgentCard, Role, TaskState } from '@a2a-js/sdk';
import {
  AgentEvent,
  type AgentExecutor,
  DefaultRequestHandler,
  InMemoryTaskStore,
} from '@a2a-js/sdk/server';
import { UserBuilder, agentCardHandler, jsonRpcHandler } from '@a2a-js/sdk/server/express';
import { agentCard } from '../../src/a2a/agent-cards.js';
import { textPart } from '../../src/a2a/task-shapes.js';

export interface SdkA2AAgent {
  /** The agent's base URL (its card at `/.well-known/agent-card.json`). */
  url: string;
  /** The message ids it received (a repeated call shows up twice with one id). */
  messageIds: string[];
  /** The headers of every request it received (its card's included). */
  headers: IncomingHttpHeaders[];
  /** The ids of the tasks it was asked to cancel. */
  cancelled: string[];
  /** Resolves once a task that says `hold` is waiting. */
  holding(): Promise<void>;
  /** Lets every task that says `hold` finish. */
  release(): void;
  close(): Promise<void>;
}

/**
 * A remote A2A agent written with the official SDK's own server pieces (DefaultRequestHandler,
 * its in-memory task store, the Express JSON-RPC transport): it answers `echo: <text>`, a text
 * that says `need input` leaves its task input-required, and one that says `hold` keeps it
 * working until the test releases it (or it is cancelled). `streaming: false` gives it a card
 * that does not stream (its callers poll).
 */
export async function startSdkA2AAgent(
  options: { streaming?: boolean } = {},
): Promise<SdkA2AAgent> {
  const messageIds: string[] = [];
  const headers: IncomingHttpHeaders[] = [];
  const cancelled: string[] = [];
  const held = new Set<() => void>();
  let onHold: (() => void) | undefined;
  const executor: AgentExecutor = {
    execute: async (context, bus) => {
      messageIds.push(context.userMessage.messageId);
      const text = context.userMessage.parts
        .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
        .join('');
      const ids = { id: context.taskId, contextId: context.contextId };
      bus.publish(
        AgentEvent.task({
          ...ids,
          status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: undefined },
          artifacts: [],
          history: [],
          metadata: undefined,
        }),
      );
      if (text.includes('hold')) {
        // Working until released or cancelled (cancelTask ends the task itself).
        const released = await new Promise<boolean>((resolve) => {
          const done = () => resolve(true);
          held.add(done);
          const cancel = () => resolve(false);
          cancellers.set(context.taskId, cancel);
          onHold?.();
        });
        cancellers.delete(context.taskId);
        if (!released) return;
      }
      const waits = text.includes('need input');
      if (!waits) {
        bus.publish(
          AgentEvent.artifactUpdate({
            taskId: context.taskId,
            contextId: context.contextId,
            artifact: {
              artifactId: 'reply',
              name: 'reply',
              description: '',
              parts: [textPart(`echo: ${text}`)],
              metadata: undefined,
              extensions: [],
            },
            append: false,
            lastChunk: true,
            metadata: undefined,
          }),
        );
      }
      bus.publish(
        AgentEvent.statusUpdate({
          taskId: context.taskId,
          contextId: context.contextId,
          status: {
            state: waits ? TaskState.TASK_STATE_INPUT_REQUIRED : TaskState.TASK_STATE_COMPLETED,
            message: waits
              ? {
                  messageId: `${context.taskId}-ask`,
                  contextId: context.contextId,
                  taskId: context.taskId,
                  role: Role.ROLE_AGENT,
                  parts: [textPart('which order?')],
                  metadata: undefined,
                  extensions: [],
                  referenceTaskIds: [],
                }
              : undefined,
            timestamp: new Date().toISOString(),
          },
          metadata: undefined,
        }),
      );
      bus.finished();
      return Promise.resolve();
    },
    cancelTask: (taskId, bus) => {
      cancelled.push(taskId);
      cancellers.get(taskId)?.();
      bus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId: '',
          status: {
            state: TaskState.TASK_STATE_CANCELED,
            message: undefined,
            timestamp: new Date().toISOString(),
          },
          metadata: undefined,
        }),
      );
      bus.finished();
      return Promise.resolve();
    },
  };
  const cancellers = new Map<string, () => void>();
  const app = express();
  app.use((req, _res, next) => {
    headers.push(req.headers);
    next();
  });
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // The gateway's card builder gives the shape; the interface is this agent's own.
  const card = AgentCard.fromJSON({
    ...(AgentCard.toJSON(
      agentCard({
        baseUrl: url,
        agent: 'sdk-agent',
        tenantId: '',
        description: 'an echo agent on the A2A SDK',
        skills: [],
        pushNotifications: false,
      }),
    ) as object),
    supportedInterfaces: [
      { url: `${url}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    ],
  });
  card.capabilities = { ...card.capabilities!, streaming: options.streaming ?? true };
  app.use(
    '/.well-known/agent-card.json',
    agentCardHandler({ agentCardProvider: () => Promise.resolve(card) }),
  );
  app.use(
    '/rpc',
    jsonRpcHandler({
      requestHandler: new DefaultRequestHandler(card, new InMemoryTaskStore(), executor),
      userBuilder: UserBuilder.noAuthentication,
    }),
  );
  return {
    url,
    messageIds,
    headers,
    cancelled,
    holding: () =>
      held.size > 0
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            onHold = resolve;
          }),
    release: () => {
      for (const done of [...held]) done();
      held.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
