import type { Server } from 'node:http';
import { Logger } from 'nestjs-pino';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { createGatewayApp } from '../app/create-app.js';
import { servingHeap } from './heap-settings.js';
import { type ServeOptions, serveConfig } from './serve-config.js';
import { startError } from './start-failure.js';

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

/**
 * `svc serve`: the gateway on its port until SIGTERM/SIGINT and the drain. Loaded by
 * ServeCommand when it runs, so that other commands (and usage, --version) do not load the app.
 */
export async function serveGateway(options: ServeOptions): Promise<void> {
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
