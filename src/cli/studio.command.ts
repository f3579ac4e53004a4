import { Command, Option, SubCommand } from 'nest-commander';
import { ConfigError } from '../platform/config/config-error.js';
import type { StudioSnapshot } from '../studio/studio-records.js';
import { STUDIO_MAX_LIMIT } from '../studio/studio.store.js';
import { CliFailure } from './cli-errors.js';
import { GatewayClient } from './gateway-client.js';
import { studioTables } from './studio-tables.js';
import { SvcCommand } from './svc-command.js';

interface ShowOptions {
  url?: string;
  tenant?: string;
  limit?: string;
  json?: boolean;
}

const SHOW_TIMEOUT_MS = 10_000;

@SubCommand({
  name: 'show',
  description: 'Print the studio snapshot (sessions, loops, counts) of a running gateway',
})
export class StudioShowCommand extends SvcCommand {
  async run(_args: string[], options: ShowOptions = {}): Promise<void> {
    const query = new URLSearchParams();
    if (options.tenant !== undefined) query.set('tenant_id', options.tenant);
    if (options.limit !== undefined) {
      const limit = Number(options.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > STUDIO_MAX_LIMIT) {
        throw new ConfigError(
          `--limit must be an integer between 1 and ${STUDIO_MAX_LIMIT} (got "${options.limit}")`,
        );
      }
      query.set('limit', String(limit));
    }
    const client = GatewayClient.fromEnv(options.url);
    const suffix = query.size > 0 ? `?${query.toString()}` : '';
    const { body } = await client.call<StudioSnapshot>('studio', 'GET', `/v1/studio${suffix}`, {
      timeoutMs: SHOW_TIMEOUT_MS,
    });
    if (!Array.isArray(body?.sessions) || !Array.isArray(body?.loops) || !body?.counts) {
      throw new CliFailure(`${client.baseUrl} answered /v1/studio without a studio snapshot`);
    }
    process.stdout.write(options.json ? `${JSON.stringify(body, null, 2)}\n` : studioTables(body));
  }

  @Option({
    flags: '--url <url>',
    description:
      'the gateway (default http://127.0.0.1:$SVC_PORT, port 8080); key from SVC_API_KEY',
  })
  parseUrl(value: string): string {
    return value;
  }

  @Option({ flags: '--tenant <tenant_id>', description: "only this tenant's sessions and loops" })
  parseTenant(value: string): string {
    return value;
  }

  @Option({
    flags: '--limit <n>',
    description: `rows per table (default 50, at most ${STUDIO_MAX_LIMIT})`,
  })
  parseLimit(value: string): string {
    return value;
  }

  @Option({ flags: '--json', description: 'print the snapshot as JSON' })
  parseJson(): boolean {
    return true;
  }
}

@Command({
  name: 'studio',
  description: 'Read the studio of a running gateway',
  subCommands: [StudioShowCommand],
})
export class StudioCommand extends SvcCommand {
  run(args: string[]): Promise<void> {
    // `svc studio` alone, or with an unknown sub-command: usage on stderr, exit 1.
    const problem =
      args.length > 0 ? `unknown command 'studio ${args[0]}'` : "missing command: 'studio show'";
    process.stderr.write(`svc: ${problem}\n`);
    this.command.outputHelp({ error: true });
    process.exitCode = 1;
    return Promise.resolve();
  }
}
