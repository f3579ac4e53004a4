import { Command, Option } from 'nest-commander';
import type { RunEvent } from '../runs/events/run-event.js';
import type { RunRecord } from '../runs/record/run-record.js';
import { GatewayClient } from './gateway-client.js';
import { type RunOptions, runBody } from './run-body.js';
import { type Reconnect, followRemoteRun } from './run-follower.js';
import { checkOutcome, humanOutput } from './run-output.js';
import { RunProgress } from './run-progress.js';
import { SvcCommand } from './svc-command.js';

function reportReconnect({ runId, after, attempt, attempts, reason }: Reconnect): void {
  process.stderr.write(
    `svc: ${reason}; reading on from event ${after} of run ${runId} (attempt ${attempt} of ${attempts})\n`,
  );
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

  /** In this process: the app it builds (and all it needs) loads only for such a run. */
  private async runHere(options: RunOptions, show?: (event: RunEvent) => void): Promise<RunRecord> {
    const { runHere } = await import('./run-here.js');
    return runHere(options, show);
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
