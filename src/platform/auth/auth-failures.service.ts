import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Request, Response } from 'express';
import { AuditSink } from '../audit/audit-sink.js';
import type { GatewayConfig } from '../config/gateway-config.js';
import { ProblemException } from '../http/problem.js';
import { clientAddress } from './client-address.js';
import { FailureBudget } from './failure-budget.js';
import { FailureSummary } from './failure-summary.js';

/** A path is the client's to choose (up to Node's header limit): the trail keeps its start. */
const MAX_AUDITED_PATH = 256;

const auditedPath = (req: Request): string => req.path.slice(0, MAX_AUDITED_PATH);

/** What went wrong, for the audit trail; 401s also spend the client's failure budget. */
export interface FailedCheck {
  status: 401 | 403;
  reason: string;
  /** A refused valid key's own tenant and id (403); unset for a missing or wrong credential. */
  tenantId?: string;
  actor?: string;
}

/**
 * Every way a request can fail to authenticate (API key, webhook signature) reports here, so
 * failures are limited and audited alike: `refuseIfBlocked` before any credential is checked
 * (429 with Retry-After once the client address has spent SVC_AUTH_FAILURE_LIMIT in
 * SVC_AUTH_FAILURE_WINDOW_MS), `failed` after a refusal. The audit trail gets the first failure
 * of a kind per window and one summary with the count of the rest (FailureSummary).
 */
@Injectable()
export class AuthFailures implements OnApplicationShutdown {
  private readonly budget: FailureBudget;
  private readonly summary: FailureSummary;
  private readonly flusher: NodeJS.Timeout;

  constructor(config: ConfigService<GatewayConfig, true>, audit: AuditSink) {
    const { failureLimit, failureWindowMs } = config.get('auth', { infer: true });
    this.budget = new FailureBudget({ limit: failureLimit, windowMs: failureWindowMs });
    this.summary = new FailureSummary((event) => audit.record(event));
    this.flusher = setInterval(() => this.summary.flush(), failureWindowMs).unref();
    // The last window is recorded before the sink writes for the last time.
    audit.beforeClose(() => this.summary.flush());
  }

  /** Throws 429 (and sets Retry-After) when the request's client may not try now. */
  refuseIfBlocked(req: Request, res: Response): void {
    // Nobody failed within the window: nobody is blocked (and no address is worked out).
    if (this.budget.size === 0) return;
    const client = clientAddress(req);
    const retryAfter = this.budget.retryAfter(client);
    if (retryAfter === 0) return;
    const reason = 'too many failed authentications from this address';
    this.summary.report({
      client,
      status: 429,
      reason,
      method: req.method,
      path: auditedPath(req),
    });
    res.setHeader('Retry-After', retryAfter);
    throw new ProblemException(429, `${reason}; retry in ${retryAfter} s`, 'auth-rate-limited');
  }

  failed(req: Request, check: FailedCheck): void {
    const client = clientAddress(req);
    if (check.status === 401) this.budget.fail(client);
    this.summary.report({ client, method: req.method, path: auditedPath(req), ...check });
  }

  /** No more windows; the last one went to the sink through its close hook. */
  onApplicationShutdown(): void {
    clearInterval(this.flusher);
  }
}
