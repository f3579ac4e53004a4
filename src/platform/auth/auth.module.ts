import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ApiKeyRegistry } from './api-key-registry.service.js';
import { AuthFailures } from './auth-failures.service.js';
import { AuthGuard } from './auth.guard.js';
import { WhoamiController } from './whoami.controller.js';

/**
 * API keys, roles and the global AuthGuard (registered before the rate limiter). Global like the
 * audit sink, because every surface that checks a credential of its own (the signed webhook)
 * reports its failures to the same AuthFailures. GET /v1/whoami tells a key what it may do.
 */
@Global()
@Module({
  controllers: [WhoamiController],
  providers: [ApiKeyRegistry, AuthFailures, { provide: APP_GUARD, useClass: AuthGuard }],
  exports: [ApiKeyRegistry, AuthFailures],
})
export class AuthModule {}
