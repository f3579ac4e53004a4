import { HttpException } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { Command, Option } from 'nest-commander';
import { destination } from 'pino';
import { AgentRunner } from '../agent/agent-runner.service.js';
import { RunAgentDto } from '../agent/dto/run-agent.dto.js';
import { toRunRequest } from '../agent/run-request.js';
import { AppModule } from '../app/app.module.js';
import { loadConfig } from '../config/load-config.js';
import type { RunRecord } from '../runs/run-record.js';
import { StateDatabase } from '../state/state-database.service.js';
import { CliFailure } from './cli-errors.js';
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
}

async function readStdin(): Promise<string | undefined> {
  if (process.stdin.isTTY) return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8').trim();
  return text.length > 0 ? text : undefined;
}

function humanOutput(record: RunRecord): string {
  return (
    `${record.text}\n\n` +
    `turns: ${record.turns} · tool calls: ${record.tool_calls} · finish: ${record.finish_reason} · ` +
    `session: ${record.session_id}\n`
  );
}

@Command({
  name: 'run',
  description: 'Run an agent in-process (no server) on the configured backend and provider',
})
export class RunCommand extends SvcCommand {
  async run(_args: string[], options: RunOptions = {}): Promise<void> {
    // Logs go to stderr so that stdout carries only the reply (or the JSON).
    const loaded = loadConfig({ SVC_LOG_LEVEL: 'warn', ...process.env });
    // A one-shot process must not adopt other replicas' unfinished runs.
    const config = { ...loaded, state: { ...loaded.state, takeOverRuns: false } };
    const tenant = options.tenant ?? config.tenancy.defaultTenant;
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
      const record = await app.get(AgentRunner).run(request);
      process.stdout.write(
        options.json ? `${JSON.stringify(record, null, 2)}\n` : humanOutput(record),
      );
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
}
