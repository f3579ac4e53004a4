/** The real StateStore from dist/, inside a Nest application context of just the state module. */
import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { GatewayConfigModule } from '../../dist/src/platform/config/gateway-config.module.js';
import { loadConfig } from '../../dist/src/platform/config/load-config.js';
import { StateDatabase } from '../../dist/src/platform/state/state-database.service.js';
import { StateModule } from '../../dist/src/platform/state/state.module.js';
import { StateStore } from '../../dist/src/platform/state/state-store.js';

/** `env` holds SVC_STATE_* variables; the store connects and migrates before this resolves. */
export async function openStateStore(env) {
  const config = loadConfig(env);
  class BenchStateModule {}
  Module({ imports: [await GatewayConfigModule.forRoot(config), StateModule] })(BenchStateModule);
  const app = await NestFactory.createApplicationContext(BenchStateModule, {
    logger: false,
    abortOnError: false,
  });
  const readiness = await app.get(StateDatabase).readiness();
  if (!readiness.ready) {
    await app.close();
    throw new Error(`state backend ${config.state.backend} not ready: ${readiness.reason}`);
  }
  return { store: app.get(StateStore), poolSize: config.state.poolSize, close: () => app.close() };
}
