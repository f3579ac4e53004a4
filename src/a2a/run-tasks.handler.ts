import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type {
  AgentCard,
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetExtendedAgentCardRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  Message,
  SendMessageRequest,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
  TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import type { A2ARequestHandler, ServerCallContext } from '@a2a-js/sdk/server';
import { type A2AError, ExtendedAgentCardNotConfiguredError } from '@a2a-js/sdk/errors';
import type { GatewayConfig } from '../platform/config/gateway-config.js';
import { AgentRunner } from '../runs/agent-runner.service.js';
import { RunCancels } from '../runs/cancel/run-cancels.service.js';
import { runView } from '../runs/record/run-record.mapper.js';
import { startDetached } from '../runs/start/detached-run.js';
import { type A2ACaller, callerIn, tenantOf } from './a2a-caller.js';
import { toA2AError } from './a2a-errors.js';
import { checkHistoryLength } from './a2a-params.js';
import { agentCard } from './agent-cards.js';
import { A2APushNotifications } from './push-notifications.js';
import { A2ATaskDecisions } from './task-decisions.js';
import { A2ATaskListing } from './task-listing.js';
import { A2ATaskRecords, DEFAULT_AGENT } from './task-records.js';
import { toTask } from './task-shapes.js';
import { type TaskRunOptions, requireMessage, taskRunRequest } from './task-run-request.js';
import { A2ATaskStreams } from './task-streams.js';

/** Who asks, for which tenant: every operation starts here. */
interface Asker {
  caller: A2ACaller;
  tenantId: string;
}

/**
 * A2A over the gateway's runs (the SDK's transports call it): a task is a run, so it is durable
 * in the state backend, continues on another replica if its own dies, and reads the same from
 * every replica. `SendMessage` runs the agent of the URL (`contextId` continues that session;
 * `messageId` is the run id, so a resent message answers the same task); a task waiting for an
 * approval (`input-required`) takes a follow-up message carrying the decision (A2ATaskDecisions).
 * Streams are the run's event log (A2ATaskStreams); ListTasks reads the task index
 * (A2ATaskListing); push notifications are the run's webhook (A2APushNotifications). Every
 * error leaves as the A2A error of the request's binding (toA2AError).
 */
@Injectable()
export class RunTasksHandler implements A2ARequestHandler {
  private readonly logger = new Logger('A2A');
  private readonly runOptions: TaskRunOptions;
  private readonly defaultTenant?: string;

  constructor(
    private readonly runner: AgentRunner,
    private readonly cancels: RunCancels,
    private readonly tasks: A2ATaskRecords,
    private readonly decisions: A2ATaskDecisions,
    private readonly listing: A2ATaskListing,
    private readonly streams: A2ATaskStreams,
    private readonly push: A2APushNotifications,
    config: ConfigService<GatewayConfig, true>,
  ) {
    this.defaultTenant = config.get('tenancy', { infer: true }).defaultTenant;
    this.runOptions = {
      maxTurns: config.get('provider', { infer: true }).maxTurns,
      webhook: (push) => this.push.target(push),
    };
  }

  /** The card the transport checks a request's `A2A-Version` against (no tenant in it). */
  getAgentCard(): Promise<AgentCard> {
    return Promise.resolve(
      agentCard({
        baseUrl: '',
        agent: DEFAULT_AGENT,
        tenantId: '',
        description: '',
        skills: [],
        pushNotifications: this.push.enabled,
      }),
    );
  }

  getAuthenticatedExtendedAgentCard(
    _params: GetExtendedAgentCardRequest,
    _context: ServerCallContext,
  ): Promise<AgentCard> {
    return Promise.reject(new ExtendedAgentCardNotConfiguredError());
  }

  sendMessage(params: SendMessageRequest, context: ServerCallContext): Promise<Message | Task> {
    return this.answer(
      context,
      async ({ caller, tenantId }) => {
        const message = requireMessage(params);
        const historyLength = checkHistoryLength(params.configuration?.historyLength);
        if (message.taskId) {
          return this.decisions.decide(caller, tenantId, message, historyLength);
        }
        const request = taskRunRequest(caller, tenantId, message, params, this.runOptions);
        const record = params.configuration?.returnImmediately
          ? (await startDetached(this.runner, request, this.logger)).record
          : await this.runner.run(request);
        return toTask(record, historyLength);
      },
      params.tenant,
    );
  }

  async *sendMessageStream(
    params: SendMessageRequest,
    context: ServerCallContext,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    const caller = callerIn(context);
    try {
      const asker = await this.ask(context, params.tenant);
      const message = requireMessage(params);
      const historyLength = checkHistoryLength(params.configuration?.historyLength);
      if (message.taskId) {
        const decided = await this.decisions.decide(caller, asker.tenantId, message, historyLength);
        yield { payload: { $case: 'task', value: decided } };
        return;
      }
      const request = taskRunRequest(caller, asker.tenantId, message, params, this.runOptions);
      const started = await startDetached(this.runner, { ...request, deltas: true }, this.logger);
      yield { payload: { $case: 'task', value: toTask(started.record, historyLength) } };
      yield* this.streams.follow(asker.tenantId, started.record, started.ended);
    } catch (error) {
      throw failed(caller, toA2AError(error, caller.binding));
    }
  }

  getTask(params: GetTaskRequest, context: ServerCallContext): Promise<Task> {
    return this.answer(
      context,
      async ({ caller, tenantId }) => {
        const historyLength = checkHistoryLength(params.historyLength);
        return toTask(await this.tasks.read(tenantId, caller.agent, params.id), historyLength);
      },
      params.tenant,
    );
  }

  cancelTask(params: CancelTaskRequest, context: ServerCallContext): Promise<Task> {
    return this.answer(
      context,
      async ({ caller, tenantId }) => {
        await this.tasks.read(tenantId, caller.agent, params.id);
        const outcome = await this.cancels.cancel(tenantId, params.id, caller.principal.keyId);
        return toTask(runView(outcome.run));
      },
      params.tenant,
      true,
    );
  }

  listTasks(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    return this.answer(
      context,
      ({ caller, tenantId }) => this.listing.list(tenantId, caller.agent, params),
      params.tenant,
    );
  }

  async *resubscribe(
    params: SubscribeToTaskRequest,
    context: ServerCallContext,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    const caller = callerIn(context);
    try {
      const { tenantId } = await this.ask(context, params.tenant);
      yield* this.streams.subscribe(tenantId, params.id, () =>
        this.tasks.read(tenantId, caller.agent, params.id),
      );
    } catch (error) {
      throw failed(caller, toA2AError(error, caller.binding));
    }
  }

  createTaskPushNotificationConfig(
    params: TaskPushNotificationConfig,
    context: ServerCallContext,
  ): Promise<TaskPushNotificationConfig> {
    return this.answer(
      context,
      async ({ caller, tenantId }) =>
        this.push.configure(await this.tasks.read(tenantId, caller.agent, params.taskId), params),
      params.tenant,
    );
  }

  getTaskPushNotificationConfig(
    params: GetTaskPushNotificationConfigRequest,
    context: ServerCallContext,
  ): Promise<TaskPushNotificationConfig> {
    return this.answer(
      context,
      async ({ caller, tenantId }) => {
        await this.tasks.read(tenantId, caller.agent, params.taskId);
        return this.push.require(tenantId, params.taskId, params.id);
      },
      params.tenant,
    );
  }

  listTaskPushNotificationConfigs(
    params: ListTaskPushNotificationConfigsRequest,
    context: ServerCallContext,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    return this.answer(
      context,
      async ({ caller, tenantId }) => {
        await this.tasks.read(tenantId, caller.agent, params.taskId);
        const found = await this.push.get(tenantId, params.taskId);
        return { configs: found ? [found] : [], nextPageToken: '' };
      },
      params.tenant,
    );
  }

  deleteTaskPushNotificationConfig(
    params: DeleteTaskPushNotificationConfigRequest,
    context: ServerCallContext,
  ): Promise<void> {
    return this.answer(
      context,
      async ({ caller, tenantId }) => {
        await this.tasks.read(tenantId, caller.agent, params.taskId);
        await this.push.require(tenantId, params.taskId, params.id);
        await this.push.remove(tenantId, params.taskId);
      },
      params.tenant,
    );
  }

  /**
   * Runs one operation for the caller and the tenant it may act for (the agent of the URL must
   * exist there), its errors turned into A2A errors of the caller's binding.
   */
  private async answer<T>(
    context: ServerCallContext,
    work: (asker: Asker) => Promise<T>,
    tenant?: string,
    cancelling = false,
  ): Promise<T> {
    const caller = callerIn(context);
    try {
      return await work(await this.ask(context, tenant));
    } catch (error) {
      throw failed(caller, toA2AError(error, caller.binding, cancelling));
    }
  }

  /**
   * The caller and its tenant: the request's own `tenant` field, else the HTTP+JSON path's
   * (the SDK hands it over as the context's tenant), else what tenantOf falls back to.
   */
  private async ask(context: ServerCallContext, tenant: string | undefined): Promise<Asker> {
    const caller = callerIn(context);
    const tenantId = tenantOf(caller, tenant || context.tenant, this.defaultTenant);
    await this.tasks.requireAgent(tenantId, caller.agent);
    return { caller, tenantId };
  }
}

/** Remembers what the request was answered with (see A2ACaller.failure). */
function failed(caller: A2ACaller, error: A2AError): A2AError {
  caller.failure = error;
  return error;
}
