import { HttpException } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { Command, Option } from 'nest-commander';
import { destination } from 'pino';
import { AgentRunner } from '../runs/agent-runner.service.js';
import { RunAgentDto } from '../runs/dto/run-agent.dto.js';
import { toRunRequest } from '../runs/run-request.js';
import { AppModule } from '../app/app.module.js';
import { loadConfig } from '../platform/config/load-config.js';
import type { RunEvent } from '../runs/events/run-event.js';
import type { RunRecord } from '../runs/record/run-record.js';
import { StateDatabase } from '../platform/state/state-database.service.js';
import { CliFailure } from './cli-errors.js';
import { GatewayClient } from './gateway-client.js';
import { followLocalRun } from './local-run-follower.js';
import { type Reconnect, followRemoteRun } from './run-follower.js';
import { checkOutcome, humanOutput } from './run-output.js';
import { RunProgress } from './run-progress.js';
import { SvcCommand } from './svc-command.js';

interface RunOptions {
  tenant?: string;
  prompt?: string;
  agent?: string;
  toolset?: string;
  session?: string;
  model?: string;
  maxTurns?: string;
  json?: boolean;
  url?: string;
  stream?: boolean;
}

async function readStdin(): Promise<string | undefined> {
  if (process.stdin.isTTY) return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8').trim();
  return text.length > 0 ? text : undefined;
}

function reportReconnect({ runId, after, attempt, attempts, reason }: Reconnect): void {
  process.stderr.write(
    `svc: ${reason}; reading on from event ${after} of run ${runId} (attempt ${attempt} of ${attempts})\n`,
  );
}

/** The body of POST /v1/agent/run, checked here as the gateway would check it. */
async function runBody(
  options: RunOptions,
  defaultTenant: string | undefined,
): Promise<RunAgentDto> {
  const tenant = options.tenant ?? defaultTenant;
  if (!tenant) throw new CliFailure('--tenant is required (or set SVC_TENANT)');
  const prompt = options.prompt ?? (await readStdin());
  if (prompt === undefined)
    throw new CliFailure('--prompt is required (or pipe the prompt on stdin)');
  const dto = plainToInstance(RunAgentDto, {
    tenant_id: tenant,
    prompt,
    agent: options.agent,
    toolset: options.toolset,
    session_id: options.session,
    model: options.model,
    max_turns: options.maxTurns === undefined ? undefined : Number(options.maxTurns),
  });
  const problems = validateSync(dto).flatMap((error) => Object.values(error.constraints ?? {}));
  if (problems.length > 0) throw new CliFailure(problems.join('; '));
  return dto;
}

@Command({
  name: 'run',
  description:
    'Run an agent in-process (no server) on the configured backend and provider, or on a ' +
    'serving gateway with --url',
})
export class RunCommand extends SvcCommand {
  async run(_args: string[], options: RunOptions = {}): Promise<void> {
    // Streamed: the text goes to stdout as it comes (to stderr with --json, so that stdout
    // stays one JSON document), progress lines to stderr.
    const progress = options.stream
      ? new RunProgress({
          text: (chunk) => (options.json ? process.stderr : process.stdout).write(chunk),
          progress: (line) => process.stderr.write(line),
        })
      : undefined;
    const show = progress ? (event: RunEvent) => progress.show(event) : undefined;
    let record: RunRecord;
    try {
      record =
        options.url === undefined
          ? await this.runHere(options, show)
          : await this.runThere(options, show);
    } finally {
      progress?.end();
    }
    checkOutcome(record);
    if (options.json) process.stdout.write(`${JSON.stringify(record, null, 2)}\n`);
    else process.stdout.write(progress ? progress.finish(record) : humanOutput(record));
  }

  /**
   * POST /v1/agent/run on a serving gateway with SVC_API_KEY: the run is that gateway's (its
   * backend, provider, audit and studio). Of the local configuration only SVC_TENANT is read.
   * Streamed (`show`), its events are shown as they come, across a broken connection.
   */
  private async runThere(
    options: RunOptions,
    show?: (event: RunEvent) => void,
  ): Promise<RunRecord> {
    const client = GatewayClient.fromEnv(options.url);
    const body = await runBody(options, process.env.SVC_TENANT || undefined);
    if (show) return followRemoteRun(client, body, show, { onReconnect: reportReconnect });
    const answer = await client.call<RunRecord>('run', 'POST', '/v1/agent/run', { body });
    return answer.body;
  }

  private async runHere(options: RunOptions, show?: (event: RunEvent) => void): Promise<RunRecord> {
    // Logs go to stderr so that stdout carries only the reply (or the JSON).
    const loaded = loadConfig({ SVC_LOG_LEVEL: 'warn', ...process.env });
    // A one-shot process must not adopt other replicas' unfinished runs.
    const config = { ...loaded, state: { ...loaded.state, takeOverRuns: false } };
    const dto = await runBody(options, config.tenancy.defaultTenant);
    const app = await NestFactory.createApplicationContext(
      await AppModule.forRoot(config, { logDestination: destination(2) }),
      { logger: false, abortOnError: false },
    );
    try {
      const readiness = await app.get(StateDatabase).readiness();
      if (!readiness.ready) {
        throw new CliFailure(
          `state backend ${readiness.backend} is not ready: ${readiness.reason}`,
        );
      }
      const request = toRunRequest(dto, { maxTurns: config.provider.maxTurns }, 'cli');
      return show
        ? await followLocalRun(app, request, show)
        : await app.get(AgentRunner).run(request);
    } catch (error) {
      if (error instanceof HttpException) {
        throw new CliFailure(`run failed (${error.getStatus()}): ${error.message}`);
      }
      throw error;
    } finally {
      await app.close();
    }
  }

  @Option({ flags: '--tenant <tenant_id>', description: 'tenant to run for (default SVC_TENANT)' })
  parseTenant(value: string): string {
    return value;
  }

  @Option({ flags: '--prompt <text>', description: 'the prompt (default: read from stdin)' })
  parsePrompt(value: string): string {
    return value;
  }

  @Option({ flags: '--agent <name>', description: 'agent to run (default "default")' })
  parseAgent(value: string): string {
    return value;
  }

  @Option({
    flags: '--toolset <name>',
    description: 'toolset the agent may use (default "default")',
  })
  parseToolset(value: string): string {
    return value;
  }

  @Option({ flags: '--session <session_id>', description: 'continue this session' })
  parseSession(value: string): string {
    return value;
  }

  @Option({ flags: '--model <name>', description: 'model (default SVC_MODEL)' })
  parseModel(value: string): string {
    return value;
  }

  @Option({ flags: '--max-turns <n>', description: 'turn limit (default SVC_MAX_TURNS)' })
  parseMaxTurns(value: string): string {
    return value;
  }

  @Option({ flags: '--json', description: 'print the run as JSON' })
  parseJson(): boolean {
    return true;
  }

  @Option({
    flags: '--stream',
    description:
      'print the answer as it is generated, and tool calls and steps on stderr as they happen',
  })
  parseStream(): boolean {
    return true;
  }

  @Option({
    flags: '--url <url>',
    description: 'run on this serving gateway instead (POST /v1/agent/run, key SVC_API_KEY)',
  })
  parseUrl(value: string): string {
    return value;
  }
}
