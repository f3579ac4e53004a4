import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Request, Response } from 'express';
import { RateLimiterMemory, RateLimiterRes } from './memory-limiter.js';
import type { AuthenticatedRequest } from '../auth/principal.js';
import type { GatewayConfig } from '../config/gateway-config.js';
import { ProblemException } from '../http/problem.js';
import { rateLimitSubject } from './rate-limit-subject.js';

const WINDOW_SECONDS = 60;

/**
 * SVC_RATE_LIMIT_PER_MIN requests per tenant per minute on this replica (0 = off), counted across
 * all routes; public probes are never limited. Over the limit: 429 with Retry-After.
 * Registered after the AuthGuard, so a bad key is a 401 before it spends any budget.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  private readonly limit: number;
  private readonly limiter?: RateLimiterMemory;

  constructor(config: ConfigService<GatewayConfig, true>) {
    this.limit = config.get('auth', { infer: true }).rateLimitPerMin;
    if (this.limit > 0) {
      this.limiter = new RateLimiterMemory({ points: this.limit, duration: WINDOW_SECONDS });
    }
  }

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    // Off: answered at once, without a promise per request.
    if (!this.limiter) return true;
    return this.spend(this.limiter, context);
  }

  private async spend(limiter: RateLimiterMemory, context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const subject = rateLimitSubject(http.getRequest<Request & AuthenticatedRequest>());
    if (subject === null) return true;
    const res = http.getResponse<Response>();
    try {
      const state = await limiter.consume(subject);
      res.setHeader('RateLimit-Limit', this.limit);
      res.setHeader('RateLimit-Remaining', state.remainingPoints);
      return true;
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      const retryAfter = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      res.setHeader('Retry-After', retryAfter);
      throw new ProblemException(
        429,
        `rate limit of ${this.limit} requests per minute reached; retry in ${retryAfter} s`,
      );
    }
  }
}
