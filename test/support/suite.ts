import { afterAll, beforeAll } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { type Backend, type BackendFixture, createBackend } from './backends.js';
import { type RunningGateway, type StartOptions, startGateway } from './gateway.js';

export interface SuiteGateway {
  readonly url: string;
  readonly app: INestApplication;
  readonly fixture: BackendFixture;
}

/**
 * Starts one gateway on a fresh backend before the enclosing describe's tests and removes both
 * after them. `env` (or what it returns when the suite starts) is added to the backend's
 * SVC_STATE_* variables.
 */
export function gatewayForSuite(
  backend: Backend,
  env: Record<string, string> | (() => Record<string, string>) = {},
  options: StartOptions = {},
): SuiteGateway {
  let fixture: BackendFixture | undefined;
  let gateway: RunningGateway | undefined;
  beforeAll(async () => {
    fixture = await createBackend(backend);
    const extra = typeof env === 'function' ? env() : env;
    gateway = await startGateway({ ...fixture.env, ...extra }, options);
  });
  afterAll(async () => {
    await gateway?.close();
    await fixture?.cleanup();
  });
  const started = (): RunningGateway & { fixture: BackendFixture } => {
    if (!gateway || !fixture) throw new Error('the suite gateway is used before beforeAll ran');
    return { ...gateway, fixture };
  };
  return {
    get url() {
      return started().url;
    },
    get app() {
      return started().app;
    },
    get fixture() {
      return started().fixture;
    },
  };
}
