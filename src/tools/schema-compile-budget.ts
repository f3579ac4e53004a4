import { Injectable, Optional } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { GatewayConfig } from '../platform/config/gateway-config.js';
import { RetryLaterProblem } from '../platform/http/problem.js';
import { BoundedCache } from './bounded-cache.js';

/** Who pays for compiling a schema: refuses before one when spent, is charged after. */
export interface CompileAccount {
  admit(): void;
  charge(ms: number): void;
}

/** SVC_SCHEMA_COMPILE_MS_PER_MIN unset: what one tenant may spend compiling schemas per minute. */
export const DEFAULT_COMPILE_MS_PER_MIN = 5000;
const WINDOW_MS = 60_000;
/** Tenants tracked at once; one pushed out starts a fresh window (it needs this many tenants). */
const TRACKED_TENANTS = 10_000;

/** Anyone may compile: the built-ins, and a budget that is switched off. */
export const UNMETERED: CompileAccount = { admit: () => undefined, charge: () => undefined };

/**
 * Compiling a tenant's schema runs on the event loop and a large one takes a few hundred
 * milliseconds (ajv generates and V8 compiles its code), so a tenant registering one schema
 * after another could keep the process busy for everyone. Each tenant may spend
 * SVC_SCHEMA_COMPILE_MS_PER_MIN of compile time per minute on each replica; past it, whatever
 * would compile another schema is 429 with Retry-After until the minute is over, while calls to
 * tools whose schemas are compiled go on. One compilation may overshoot the budget (by at most
 * the 2 s compile deadline): it is measured when it ends.
 */
@Injectable()
export class SchemaCompileBudget {
  private readonly budgetMs: number;
  private readonly windows = new BoundedCache<string, { start: number; spentMs: number }>(
    TRACKED_TENANTS,
  );

  constructor(@Optional() config?: ConfigService<GatewayConfig, true>) {
    this.budgetMs =
      config?.get('tools', { infer: true }).compileMsPerMin ?? DEFAULT_COMPILE_MS_PER_MIN;
  }

  account(tenantId: string): CompileAccount {
    if (this.budgetMs === 0) return UNMETERED;
    return {
      admit: () => {
        const window = this.window(tenantId);
        if (window.spentMs < this.budgetMs) return;
        const retryAfterS = Math.max(1, Math.ceil((window.start + WINDOW_MS - Date.now()) / 1000));
        throw new RetryLaterProblem(
          429,
          `tenant "${tenantId}" has spent its ${this.budgetMs} ms of schema compilation for this ` +
            `minute; retry in ${retryAfterS} s`,
          'schema-compile-budget',
          retryAfterS,
        );
      },
      charge: (ms) => {
        this.window(tenantId).spentMs += ms;
      },
    };
  }

  private window(tenantId: string): { start: number; spentMs: number } {
    const now = Date.now();
    let window = this.windows.get(tenantId);
    if (!window || now - window.start >= WINDOW_MS) {
      window = { start: now, spentMs: 0 };
      this.windows.set(tenantId, window);
    }
    return window;
  }
}
