import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ApiKeyRegistry } from './api-key-registry.service.js';
import { AuthGuard } from './auth.guard.js';

/** API keys, roles and the global AuthGuard (registered before the rate limiter). */
@Module({
  providers: [ApiKeyRegistry, { provide: APP_GUARD, useClass: AuthGuard }],
  exports: [ApiKeyRegistry],
})
export class AuthModule {}
