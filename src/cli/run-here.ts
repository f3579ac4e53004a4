import { HttpException } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { destination } from 'pino';
import { AppModule } from '../app/app.module.js';
import { loadConfig } from '../platform/config/load-config.js';
import { StateDatabase } from '../platform/state/state-database.service.js';
import { AgentRunner } from '../runs/agent-runner.service.js';
import type { RunEvent } from '../runs/events/run-event.js';
import type { RunRecord } from '../runs/record/run-record.js';
import { toRunRequest } from '../runs/run-request.js';
import { CliFailure } from './cli-errors.js';
import { followLocalRun } from './local-run-follower.js';
import { type RunOptions, runBody } from './run-body.js';

/**
 * `svc run` without --url: the agent runs in this process, on the configured backend and
 * provider. Loaded when it runs, with the app it builds.
 */
export async function runHere(
  options: RunOptions,
  show?: (event: RunEvent) => void,
): Promise<RunRecord> {
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
      throw new CliFailure(`state backend ${readiness.backend} is not ready: ${readiness.reason}`);
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
