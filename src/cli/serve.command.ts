import type { Server } from 'node:http';
import { Command, Option } from 'nest-commander';
import { Logger } from 'nestjs-pino';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { createGatewayApp } from '../app/create-app.js';
import { servingHeap } from './heap-settings.js';
import { type ServeOptions, serveConfig } from './serve-config.js';
import { startError } from './start-failure.js';
import { SvcCommand } from './svc-command.js';

/** How often idle keep-alive connections are closed while draining. */
const IDLE_SWEEP_MS = 100;
/** A process that failed to start exits by then even if a library still holds a handle. */
const FAILED_START_EXIT_MS = 3_000;

/** Closes the app, giving up after `ms` (a failed start must not hang on a half-open pool). */
async function closeWithin(app: NestExpressApplication, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    app.close().catch(() => undefined),
    new Promise<void>((resolve) => (timer = setTimeout(resolve, ms))),
  ]);
  clearTimeout(timer);
}

/**
 * Arms an exit for a failed start: the error is reported and the process ends on its own once
 * nothing holds it (the timer is unref'd), or a few seconds later regardless.
 */
function exitSoon(failure: Error): Error {
  setTimeout(() => process.exit(process.exitCode ?? 1), FAILED_START_EXIT_MS).unref();
  return failure;
}

/**
 * Closes the app on SIGTERM/SIGINT: stop accepting, let in-flight requests finish (closing each
 * keep-alive connection as soon as it goes idle), cut whatever still runs after `drainMs`, then
 * Nest's shutdown hooks release leases and close the pool.
 */
function closeOnSignals(app: NestExpressApplication, drainMs: number): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      const server: Server = app.getHttpServer();
      const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
      const cut = setTimeout(() => server.closeAllConnections(), drainMs);
      void app
        .close()
        .catch((error: unknown) =>
          process.stderr.write(`svc: error during shutdown: ${String(error)}\n`),
        )
        .finally(() => {
          clearInterval(sweep);
          clearTimeout(cut);
          resolve();
        });
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });
}

@Command({
  name: 'serve',
  description: 'Start the composed gateway (control, MCP, messaging, studio)',
})
export class ServeCommand extends SvcCommand {
  async run(_args: string[], options: ServeOptions = {}): Promise<void> {
    const config = serveConfig(options);
    const { host, port } = config.server;
    let app: NestExpressApplication;
    try {
      app = await createGatewayApp(config);
    } catch (error) {
      throw exitSoon(startError(error, host, port));
    }
    const closed = closeOnSignals(app, config.server.shutdownTimeoutMs);
    try {
      await app.listen(port, host);
    } catch (error) {
      // Init (module hooks, migrations) or listen failed. Nothing in the background has started
      // (it waits for the server to listen); close what init opened (the pool, the board file).
      await closeWithin(app, config.server.shutdownTimeoutMs);
      throw exitSoon(startError(error, host, port));
    }
    app
      .get(Logger)
      .log(`svc gateway listening on http://${config.server.host}:${config.server.port}`, 'Serve');
    servingHeap();
    await closed;
  }

  @Option({
    flags: '--host <host>',
    description: 'interface to bind (default 127.0.0.1, env SVC_HOST)',
  })
  parseHost(value: string): string {
    return value;
  }

  @Option({ flags: '--port <port>', description: 'port to listen on (default 8080, env SVC_PORT)' })
  parsePort(value: string): string {
    return value;
  }

  @Option({ flags: '--tenant <tenant_id>', description: 'default tenant (env SVC_TENANT)' })
  parseTenant(value: string): string {
    return value;
  }

  @Option({
    flags: '--otel-endpoint <url>',
    description:
      'OTLP/HTTP collector base URL (env OTEL_EXPORTER_OTLP_ENDPOINT; the flag wins over every endpoint variable)',
  })
  parseOtelEndpoint(value: string): string {
    return value;
  }

  @Option({ flags: '--insecure', description: 'allow a non-loopback host without any API key' })
  parseInsecure(): boolean {
    return true;
  }
}
