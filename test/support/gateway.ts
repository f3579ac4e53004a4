import type { INestApplication, Type } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { AppModule } from '../../src/app/app.module.js';
import { createAppFromModule } from '../../src/app/create-app.js';
import { loadConfig } from '../../src/platform/config/load-config.js';
import type { EgressLookup } from '../../src/platform/http/egress-agent.js';

/** Collects the gateway's JSON log lines in memory. */
export class LogCapture extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    this.lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    done();
  }
  get text(): string {
    return this.lines.join('\n');
  }
  records(): Array<Record<string, unknown>> {
    return this.lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  }
}

export interface RunningGateway {
  app: INestApplication;
  url: string;
  logs?: LogCapture;
  close(): Promise<void>;
}

export interface StartOptions {
  /**
   * Capture the JSON log lines here. nestjs-pino keeps one pino logger per process (the first app
   * creates it), so every gateway of one test file must be given the same capture.
   */
  logs?: LogCapture;
  /** Extra controllers mounted beside the real ones (routes later issues add, stood in for). */
  controllers?: Type[];
  /** Resolves the names of tenants' destinations (test names without DNS or /etc/hosts). */
  egressLookup?: EgressLookup;
}

class GatewayUnderTest {}

/** A board database of its own in a fresh temp dir, so no test writes ./data/board.sqlite. */
export function tempBoardDb(): string {
  return join(mkdtempSync(join(tmpdir(), 'svc-board-')), 'board.sqlite');
}

/**
 * Boots the real composed gateway on an ephemeral loopback port. Only the given variables are
 * seen (never the developer's own SVC_ environment); logs are silent unless captured. Without
 * SVC_BOARD_DB the board gets a temp file; an empty one is unset, so the board goes where a
 * deployment puts it by default (the state DSN on PostgreSQL).
 */
export async function startGateway(
  env: Record<string, string>,
  options: StartOptions = {},
): Promise<RunningGateway> {
  const logs = options.logs;
  const config = loadConfig({
    SVC_LOG_LEVEL: logs ? 'info' : 'silent',
    SVC_BOARD_DB: env.SVC_BOARD_DB ?? tempBoardDb(),
    ...env,
  });
  const appModule = await AppModule.forRoot(config, {
    logDestination: logs,
    egressLookup: options.egressLookup,
  });
  const app: NestExpressApplication = await createAppFromModule(
    options.controllers
      ? { module: GatewayUnderTest, imports: [appModule], controllers: options.controllers }
      : appModule,
  );
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  return { app, url: `http://127.0.0.1:${port}`, logs, close: () => app.close() };
}

/**
 * Every route registered on the app's Express router, as Express holds it: the path as mounted
 * (`/v1/runs/:run_id`, `/a2a/:agent/rest/{*path}`) and its methods in lower case (an `@All`
 * route holds every method Node knows). Left out: routes that match any path at all, which are
 * Nest's bindings of middleware (`forRoutes('{*path}')`) and its catch-all that answers 404.
 */
export function routeTable(app: INestApplication): Array<{ path: string; methods: string[] }> {
  interface Layer {
    route?: { path: string; methods: Record<string, boolean> };
    match(path: string): boolean;
  }
  const express = app.getHttpAdapter().getInstance() as { router: { stack: Layer[] } };
  return express.router.stack.flatMap((layer) =>
    layer.route && !layer.match('/no/route/has/this/path')
      ? [{ path: layer.route.path, methods: Object.keys(layer.route.methods) }]
      : [],
  );
}

/**
 * Every route a controller mounted, as `METHOD /path` with path parameters filled in (routes
 * with wildcards are left out).
 */
export function mountedRoutes(app: INestApplication): Array<{ method: string; path: string }> {
  return routeTable(app).flatMap(({ path, methods }) =>
    !/[{*]/.test(path)
      ? methods.map((method) => ({
          method: method.toUpperCase(),
          path: path.replace(/:(\w+)/g, 'x-$1'),
        }))
      : [],
  );
}
