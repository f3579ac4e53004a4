import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { RunAgentDto } from '../runs/dto/run-agent.dto.js';
import { CliFailure } from './cli-errors.js';

/** `svc run`'s options (nest-commander's parsed flags). */
export interface RunOptions {
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

/** The body of POST /v1/agent/run, checked here as the gateway would check it. */
export async function runBody(
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
