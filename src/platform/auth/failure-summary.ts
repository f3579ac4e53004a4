import type { AuditEvent } from '../audit/audit-event.js';

/** One refused request, as the audit trail describes it (never the presented key). */
export interface AuthFailure {
  /** The client address (see clientAddress). */
  client: string;
  status: number;
  reason: string;
  method: string;
  path: string;
  /** Set only when a valid key was refused (403): the key's own tenant. */
  tenantId?: string;
  actor?: string;
}

/** Distinct (client, status, reason, tenant, key) kept per window; more share one summary. */
export const MAX_SUMMARISED = 10_000;

interface Repeats {
  first: AuthFailure;
  /** Failures after the first, not recorded one by one. */
  count: number;
  lastAt: number;
}

/**
 * Turns a flood of failed authentications into a few audit events. Per window, the first
 * failure of each (client, status, reason, tenant, key) is recorded as it happens; the ones
 * after it are only counted, and `flush` (at the end of the window) records one `auth.failed`
 * event per kind with `summary: true` and the `count`. Failures of kinds beyond MAX_SUMMARISED
 * in one window are counted together in one summary with client `*`, so memory stays bounded
 * whatever the number of addresses. Events keep the failure's tenant: an anonymous failure never
 * lands in a tenant's stream.
 */
export class FailureSummary {
  private readonly kinds = new Map<string, Repeats>();
  private overflow?: Repeats;
  private windowStart: number;

  constructor(
    private readonly record: (event: AuditEvent) => void,
    private readonly now: () => number = Date.now,
    private readonly maxKinds = MAX_SUMMARISED,
  ) {
    this.windowStart = now();
  }

  report(failure: AuthFailure): void {
    const at = this.now();
    const kind = JSON.stringify([
      failure.client,
      failure.status,
      failure.reason,
      failure.tenantId ?? null,
      failure.actor ?? null,
    ]);
    const repeats = this.kinds.get(kind);
    if (repeats) {
      repeats.count += 1;
      repeats.lastAt = at;
      return;
    }
    if (this.kinds.size >= this.maxKinds) {
      this.overflow ??= {
        first: { ...failure, client: '*', tenantId: undefined, actor: undefined },
        count: 0,
        lastAt: at,
      };
      this.overflow.count += 1;
      this.overflow.lastAt = at;
      return;
    }
    this.kinds.set(kind, { first: failure, count: 0, lastAt: at });
    this.record(event(failure, { at }));
  }

  /** Records the window's summaries and starts a new window. */
  flush(): void {
    const since = this.windowStart;
    this.windowStart = this.now();
    const summaries = [...this.kinds.values()].filter((repeats) => repeats.count > 0);
    if (this.overflow) summaries.push(this.overflow);
    this.kinds.clear();
    this.overflow = undefined;
    for (const { first, count, lastAt } of summaries) {
      this.record(event(first, { summary: true, count, since, until: lastAt }));
    }
  }
}

function event(
  failure: AuthFailure,
  extra: { at: number } | { summary: true; count: number; since: number; until: number },
): AuditEvent {
  const { client, status, reason, method, path, tenantId, actor } = failure;
  const details = { status, method, path, reason, client };
  if ('at' in extra) return { kind: 'auth.failed', tenantId, actor, at: extra.at, details };
  return { kind: 'auth.failed', tenantId, actor, details: { ...details, ...extra } };
}
