import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { APP_GUARD } from '@nestjs/core';
import { ThrottlerGuard, ThrottlerModule } from '@nestjs/throttler';
import type { Request } from 'express';
import type { AuthenticatedRequest } from '../auth/principal.js';
import type { GatewayConfig } from '../config/gateway-config.js';
import { rateLimitSubject } from './rate-limit-subject.js';

const WINDOW_MS = 60_000;

/**
 * SVC_RATE_LIMIT_PER_MIN requests per tenant per minute on this replica (0 = off), counted across
 * all routes. Public probes are never limited. Over the limit: 429 with Retry-After.
 * Registered after the AuthGuard, so the tenant is known and a bad key is a 401 first.
 */
@Module({
  imports: [
    ThrottlerModule.forRootAsync({
      inject: [ConfigService],
      useFactory: (config: ConfigService<GatewayConfig, true>) => {
        const limit = config.get('auth', { infer: true }).rateLimitPerMin;
        return {
          throttlers: [{ ttl: WINDOW_MS, limit: Math.max(limit, 1) }],
          skipIf: (context) =>
            limit === 0 ||
            rateLimitSubject(
              context.switchToHttp().getRequest<Request & AuthenticatedRequest>(),
            ) === null,
          getTracker: (req) => rateLimitSubject(req as Request & AuthenticatedRequest) ?? 'public',
          generateKey: (_context, subject) => subject,
          errorMessage: `rate limit of ${limit} requests per minute reached for this tenant`,
        };
      },
    }),
  ],
  providers: [{ provide: APP_GUARD, useClass: ThrottlerGuard }],
})
export class RateLimitModule {}
