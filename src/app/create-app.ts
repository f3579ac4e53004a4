import type { DynamicModule } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Logger } from 'nestjs-pino';
import type { GatewayConfig } from '../platform/config/gateway-config.js';
import { GatewayExpressAdapter } from '../platform/http/gateway-express-adapter.js';
import { answerNodeRefusals } from '../platform/http/node-refusals.js';
import { importInTurn } from '../platform/lazy/lazy-module.js';
import { ApiDescription } from '../platform/openapi/api-description.js';
import { AppModule, type AppOptions } from './app.module.js';
import { mountRequestPipeline } from './request-pipeline.js';

/**
 * Builds the composed gateway (not yet listening). `svc serve` and the e2e tests both use this,
 * so tests exercise the production HTTP pipeline, Node's own refusals included. Nest's own body
 * parser is off: the request pipeline parses JSON after the request entry has assigned the
 * request id.
 */
export async function createGatewayApp(
  config: GatewayConfig,
  options: AppOptions = {},
): Promise<NestExpressApplication> {
  return createAppFromModule(await AppModule.forRoot(config, options));
}

/** The HTTP application around a root module that imports AppModule.forRoot(...). */
export async function createAppFromModule(root: DynamicModule): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(root, new GatewayExpressAdapter(), {
    bodyParser: false,
    bufferLogs: true,
    abortOnError: false,
  });
  app.useLogger(app.get(Logger));
  app.disable('x-powered-by');
  // Before Nest's own middleware and routes: Node's refusals get problem bodies too.
  answerNodeRefusals(app.getHttpServer());
  mountRequestPipeline(app);
  // Who the client is (req.ip): the TCP peer unless SVC_TRUST_PROXY names the proxies in front.
  const { trustProxy } = app.get(ConfigService<GatewayConfig, true>).get('server', { infer: true });
  app.set('trust proxy', trustProxy);
  // Every module is mounted now: GET /openapi.json describes these routes (built on first use,
  // when the generator and @nestjs/swagger are loaded).
  app.get(ApiDescription).describeWith(async () => {
    const { buildApiDocument } = await importInTurn(
      () => import('../platform/openapi/build-api-document.js'),
    );
    return buildApiDocument(app);
  });
  return app;
}
