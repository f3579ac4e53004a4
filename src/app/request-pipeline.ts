import { ConfigService } from '@nestjs/config';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, Response } from 'express';
import { MCP_MODULE_OPTIONS, type McpModuleOptions, underMcpMount } from '../mcp/mcp.options.js';
import type { GatewayConfig } from '../platform/config/gateway-config.js';
import { jsonBody } from '../platform/http/json-body.middleware.js';
import { missingHost } from '../platform/http/node-refusals.js';
import { RequestEntryMiddleware } from '../platform/http/request-entry.middleware.js';
import { RunLineageMiddleware } from '../runs/lifecycle/run-lineage.middleware.js';

/**
 * The middleware every request passes before its route, in this order, mounted on Express
 * itself (`app.use`, before Nest mounts its routes). Nest's own mounting (`MiddlewareConsumer`)
 * wraps each middleware in an async proxy: 4 promises per middleware per request, measured (12
 * of `GET /info`'s 30).
 *
 * 1. `missingHost`: Node's Host check, answered with a problem body.
 * 2. The request entry: its id, log scope, server span and access log line. It comes before the
 *    body is read, so a refused body (415, 413, bad JSON) is answered with its request id and
 *    logged.
 * 3. The JSON body, bounded. The MCP host's routes are left out: its transport reads its own
 *    body, so malformed JSON there is a JSON-RPC -32700, not a problem.
 * 4. The run lineage: a call this deployment made for a run is handled inside that run.
 */
export function mountRequestPipeline(app: NestExpressApplication): void {
  const config = app.get(ConfigService<GatewayConfig, true>);
  const { maxBodyBytes, maxJsonDepth } = config.get('server', { infer: true });
  const entry = app.get(RequestEntryMiddleware);
  const body = jsonBody(maxBodyBytes, maxJsonDepth);
  const isMcp = underMcpMount(app.get<McpModuleOptions>(MCP_MODULE_OPTIONS).path);
  const lineage = app.get(RunLineageMiddleware);
  app.use(missingHost);
  app.use((req: Request, res: Response, next: NextFunction) => entry.use(req, res, next));
  app.use((req: Request, res: Response, next: NextFunction) =>
    isMcp(req.path) ? next() : body(req, res, next),
  );
  app.use((req: Request, res: Response, next: NextFunction) => lineage.use(req, res, next));
}
