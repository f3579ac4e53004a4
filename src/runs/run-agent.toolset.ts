import { HttpException, Injectable, type OnModuleInit } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { permits } from '../platform/auth/permissions.js';
import type { GatewayConfig } from '../platform/config/gateway-config.js';
import { RetryLaterProblem } from '../platform/http/problem.js';
import type { JsonValue } from '../platform/state/state-store.js';
import { runDepth } from './lifecycle/run-lineage.js';
import { MAX_SESSION_ID } from '../platform/state/state-key.limits.js';
import type {
  BuiltinTool,
  BuiltinToolContext,
  ToolResult,
} from '../tools/builtin/builtin-tool.types.js';
import { BuiltinTools } from '../tools/builtin/builtin-tools.js';
import { AgentRunner } from './agent-runner.service.js';
import { MAX_INPUT_CHARS } from './run-input.limits.js';

/** The built-in toolset through which MCP clients (and REST tool calls) run agents. */
export const AGENTS_TOOLSET = 'agents';

const ID_PATTERN = '^[A-Za-z0-9_.:-]+$';

const RUN_AGENT_PARAMETERS = {
  type: 'object' as const,
  properties: {
    prompt: {
      type: 'string',
      minLength: 1,
      maxLength: MAX_INPUT_CHARS,
      description: 'What to ask.',
    },
    agent: {
      type: 'string',
      maxLength: 128,
      pattern: ID_PATTERN,
      description: 'The agent: `default` (the model with a toolset) or a registered graph.',
    },
    toolset: { type: 'string', maxLength: 64, pattern: ID_PATTERN },
    session_id: {
      type: 'string',
      maxLength: MAX_SESSION_ID - 16,
      pattern: ID_PATTERN,
      description: 'Continue this conversation.',
    },
    run_id: {
      type: 'string',
      maxLength: 200,
      pattern: ID_PATTERN,
      description: 'Idempotency key: the same run id never runs twice.',
    },
  },
  required: ['prompt'],
  additionalProperties: false,
};

const text = (value: JsonValue | undefined): string | undefined =>
  typeof value === 'string' ? value : undefined;

/**
 * Toolset `agents`, tool `run_agent`: a run through the same AgentRunner as POST /v1/agent/run
 * (so it is leased, recorded, traced and in the studio). It needs the caller's own `runs:write`,
 * and it refuses whenever it is called on a run's behalf (its model's tool calls, its graph's
 * steps, or its HTTP tool calls back into the gateway): an agent can never start agents, even
 * with auth off, where every request holds every permission.
 */
@Injectable()
export class AgentsToolset implements OnModuleInit {
  private readonly maxTurns: number;

  constructor(
    private readonly builtins: BuiltinTools,
    private readonly runner: AgentRunner,
    config: ConfigService<GatewayConfig, true>,
  ) {
    this.maxTurns = config.get('provider', { infer: true }).maxTurns;
  }

  onModuleInit(): void {
    const runAgent: BuiltinTool = {
      spec: {
        name: 'run_agent',
        description:
          'Runs an agent of this tenant on a prompt and answers with its reply and run id.',
        parameters: RUN_AGENT_PARAMETERS,
      },
      hints: {
        title: 'Run an agent',
        readOnly: false,
        destructive: false,
        idempotent: false,
        openWorld: true,
      },
      run: (args, context) => this.run(args, context),
    };
    this.builtins.register({ name: AGENTS_TOOLSET, tools: [runAgent] });
  }

  private async run(
    args: { [key: string]: JsonValue },
    context: BuiltinToolContext,
  ): Promise<ToolResult> {
    if (runDepth() > 0 || !context.permissions) {
      return {
        result: 'agents cannot start agents (run_agent is refused inside a run)',
        isError: true,
      };
    }
    if (!permits(context.permissions, 'runs:write')) {
      return { result: 'this key lacks the permission runs:write', isError: true };
    }
    try {
      const record = await this.runner.run({
        tenantId: context.tenantId,
        agent: text(args.agent) ?? 'default',
        toolset: text(args.toolset) ?? 'default',
        input: [{ role: 'user', content: text(args.prompt) ?? '' }],
        runId: text(args.run_id),
        sessionId: text(args.session_id),
        maxTurns: this.maxTurns,
        multitask: 'enqueue',
        actor: context.actor,
      });
      return {
        result: {
          run_id: record.run_id,
          session_id: record.session_id,
          agent: record.agent,
          status: record.status,
          text: record.text,
          finish_reason: record.finish_reason,
          turns: record.turns,
          tool_calls: record.tool_calls,
          ...(record.status === 'paused' ? { pending_node: record.pending_node ?? null } : {}),
        },
        isError: false,
      };
    } catch (error) {
      // A problem the caller can act on (unknown agent 404, busy 409, the tenant's token budget
      // spent 429, model 502/504). A 503 with Retry-After (backend away, replica stopping) is
      // the gateway's, not the agent's.
      const gatewayRefusal = error instanceof RetryLaterProblem && error.getStatus() >= 500;
      if (error instanceof HttpException && !gatewayRefusal) {
        return { result: error.message, isError: true };
      }
      throw error;
    }
  }
}
