import { Injectable } from '@nestjs/common';
import { TaskNotFoundError } from '@a2a-js/sdk/errors';
import { AgentSpecStore } from '../agents/agent-spec.store.js';
import { ProblemException } from '../platform/http/problem.js';
import type { RunRecord } from '../runs/record/run-record.js';
import { runView } from '../runs/record/run-record.mapper.js';
import { RunRecordStore } from '../runs/record/run-record.store.js';

const ID = /^[A-Za-z0-9_.:-]{1,200}$/;

/** The plain agent loop every tenant has; any other agent is a registered graph. */
export const DEFAULT_AGENT = 'default';

/**
 * What an A2A request at `/a2a/{agent}` may reach: the agent must exist for the tenant (an
 * unknown one is a 404, as its card is), and a task is one of that agent's runs in that tenant.
 * Each agent is an A2A server of its own: another agent's task, like another tenant's, is not
 * found there.
 */
@Injectable()
export class A2ATaskRecords {
  constructor(
    private readonly records: RunRecordStore,
    private readonly specs: AgentSpecStore,
  ) {}

  /** Refuses an agent the tenant does not have (404 `agent-not-found`). */
  async requireAgent(tenantId: string, agent: string): Promise<void> {
    if (agent === DEFAULT_AGENT || (await this.specs.get(tenantId, agent))) return;
    throw new ProblemException(404, `no agent ${JSON.stringify(agent)}`, 'agent-not-found');
  }

  /** The agent's task `taskId` as the API shows it; TaskNotFound otherwise. */
  async read(tenantId: string, agent: string, taskId: string): Promise<RunRecord> {
    const run = ID.test(taskId) ? await this.records.get(tenantId, taskId) : null;
    if (!run || run.agent !== agent) {
      throw new TaskNotFoundError(`no task ${JSON.stringify(taskId.slice(0, 200))}`);
    }
    return runView(run);
  }
}
