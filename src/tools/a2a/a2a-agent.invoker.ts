import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { SendMessageRequest } from '@a2a-js/sdk';
import { A2AError } from '@a2a-js/sdk/errors';
import { Role } from './a2a-sdk.js';
import type { Client } from '@a2a-js/sdk/client';
import type { GatewayConfig } from '../../platform/config/gateway-config.js';
import { CallDeadline } from '../../platform/http/call-deadline.js';
import { ProblemException } from '../../platform/http/problem.js';
import { TenantEgress } from '../../platform/http/tenant-egress.js';
import { DeploymentMark } from '../../platform/state/deployment-mark.js';
import type { JsonValue } from '../../platform/state/state-store.js';
import type { ToolResult } from '../builtin/builtin-tool.types.js';
import { ToolEndpointPolicy } from '../tool-endpoint.policy.js';
import { egressFetch } from '../upstream/upstream-fetch.js';
import { originOf } from '../upstream/upstream-key.js';
import { a2aAnswer } from './a2a-answer.js';
import { A2AClients, type AgentTarget } from './a2a-clients.js';
import { followTask, isTask } from './a2a-task-follower.js';

/** A remote agent's answers (card, task, a stream of it) are read this far. */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;
/** A cancellation of a remote task the call gave up on is given this long. */
const CANCEL_TIMEOUT_MS = 5_000;

/** What a remote agent is told: `message` when the arguments have one, else them as JSON. */
function messageText(args: { [key: string]: JsonValue }): string {
  return typeof args.message === 'string' ? args.message : JSON.stringify(args);
}

/** The message of one call; its id is the call's idempotency key when it has one. */
function sendRequest(args: { [key: string]: JsonValue }, messageId: string): SendMessageRequest {
  return {
    tenant: '',
    message: {
      messageId,
      contextId: '',
      taskId: '',
      role: Role.ROLE_USER,
      parts: [
        {
          content: { $case: 'text', value: messageText(args) },
          metadata: undefined,
          filename: '',
          mediaType: 'text/plain',
        },
      ],
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    },
    configuration: {
      acceptedOutputModes: [],
      taskPushNotificationConfig: undefined,
      // The task's id first, then its end: a call given up on can cancel what it started.
      returnImmediately: true,
    },
    metadata: undefined,
  };
}

/**
 * Calls a remote A2A agent registered as a tool (`endpoint.protocol: a2a`, with the headers
 * registered for it): the official SDK client, made from the agent's card, sends the arguments
 * as a message and follows the task to its end (its stream when the card says it streams, else
 * GetTask with a growing wait), all within SVC_TOOL_TIMEOUT_MS. A call that times out or is
 * cancelled cancels the remote task. Every connection (the card, the calls, wherever the card
 * points) goes through TenantEgress, so the egress policy holds as for HTTP tools, and carries
 * this deployment's mark (another gateway's agents may be called; this gateway's refuse a run's
 * call, since a run never starts a run). The message id is the call's idempotency key, so an
 * agent that deduplicates sees a repeated call as one.
 */
@Injectable()
export class A2AAgentInvoker {
  private readonly logger = new Logger('A2AAgentTool');
  private readonly timeoutMs: number;
  private readonly clients: A2AClients;

  constructor(
    config: ConfigService<GatewayConfig, true>,
    egress: TenantEgress,
    mark: DeploymentMark,
    private readonly endpoints: ToolEndpointPolicy,
  ) {
    this.timeoutMs = config.get('tools', { infer: true }).timeoutMs;
    this.clients = new A2AClients(
      egressFetch(
        () => egress.dispatcher(),
        MAX_ANSWER_BYTES,
        () => mark.headers(),
      ) as typeof fetch,
    );
  }

  async invoke(
    target: {
      tenantId: string;
      toolset: string;
      name: string;
      url: string;
      headers?: { [name: string]: string };
    },
    args: { [key: string]: JsonValue },
    { signal, idempotencyKey }: { signal?: AbortSignal; idempotencyKey?: string } = {},
  ): Promise<ToolResult> {
    const refusal = this.endpoints.refusal(target.url);
    if (refusal) throw new ProblemException(502, refusal, 'tool-failed');
    const agent: AgentTarget = { url: target.url, headers: target.headers };
    const deadline = new CallDeadline(this.timeoutMs, signal);
    const both = deadline.signal;
    let started: { client: Client; taskId: string } | undefined;
    try {
      const client = await this.clients.get(agent);
      const sent = await client.sendMessage(sendRequest(args, idempotencyKey ?? randomUUID()), {
        signal: both,
      });
      if (!isTask(sent)) return a2aAnswer(sent);
      started = { client, taskId: sent.id };
      return a2aAnswer(await followTask(client, sent, both));
    } catch (error) {
      if (started && both.aborted) await this.cancel(started.client, started.taskId, target);
      if (signal?.aborted) throw signal.reason;
      if (deadline.timedOut) {
        throw new ProblemException(
          504,
          `the remote A2A agent did not answer within ${this.timeoutMs} ms`,
          'tool-timeout',
        );
      }
      this.clients.forget(agent);
      // The agent answered with an A2A error: its words, for the model (as an upstream MCP's).
      if (error instanceof A2AError) {
        return { result: `the remote A2A agent answered: ${error.message}`, isError: true };
      }
      this.logger.warn(
        {
          reason: error instanceof Error ? error.message : String(error),
          tenant_id: target.tenantId,
          toolset: target.toolset,
          tool: target.name,
          endpoint: originOf(target.url),
        },
        'A2A agent tool call failed',
      );
      throw new ProblemException(502, 'remote A2A agent unreachable', 'tool-failed');
    } finally {
      deadline.end();
    }
  }

  /** Cancels a remote task this call started and gave up on; a failure is only logged. */
  private async cancel(
    client: Client,
    taskId: string,
    target: { tenantId: string; toolset: string; name: string; url: string },
  ): Promise<void> {
    try {
      await client.cancelTask(
        { tenant: '', id: taskId, metadata: undefined },
        { signal: AbortSignal.timeout(CANCEL_TIMEOUT_MS) },
      );
    } catch (error) {
      this.logger.warn(
        {
          reason: error instanceof Error ? error.message : String(error),
          tenant_id: target.tenantId,
          tool: target.name,
          endpoint: originOf(target.url),
        },
        'cancelling a remote A2A task failed',
      );
    }
  }
}
