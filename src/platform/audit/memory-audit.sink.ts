import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { AuditConfig, GatewayConfig } from '../config/gateway-config.js';
import type { AuditEvent, RecordedAuditEvent } from './audit-event.js';
import { matchesAudit } from './audit-filter.js';
import { AuditRing } from './audit-ring.js';
import { type AuditFilter, type AuditQuery, AuditSink, MAX_AUDIT_LIST } from './audit-sink.js';

/**
 * The default sink: bounded rings in memory, one per tenant plus one for events of no tenant
 * (a request with no or a wrong key, a key bound to no tenant). A full ring drops its own oldest
 * event, so no tenant's volume, and no flood of anonymous failures, ever evicts another tenant's
 * events. The number of tenant rings is bounded too: a new tenant beyond SVC_AUDIT_MAX_TENANTS
 * replaces the ring written least recently (only keys bound to no tenant, which act for every
 * tenant, can name new tenants).
 */
@Injectable()
export class MemoryAuditSink extends AuditSink implements OnApplicationShutdown {
  private readonly logger = new Logger('Audit');
  private readonly limits: AuditConfig;
  /** Tenant → ring, in the order of their last write (the first is the least recently written). */
  private readonly tenants = new Map<string, AuditRing>();
  private readonly untenanted: AuditRing;
  private nextId = 0;
  /** The last entry of `tenants`. */
  private lastWritten?: { tenantId: string; ring: AuditRing };

  constructor(config: ConfigService<GatewayConfig, true>) {
    super();
    this.limits = config.get('audit', { infer: true });
    this.untenanted = new AuditRing(this.limits.eventsPerTenant);
  }

  record(event: AuditEvent): void {
    try {
      this.ringFor(event.tenantId).push({
        ...event,
        id: this.nextId++,
        at: event.at ?? Date.now(),
      });
    } catch (err) {
      this.logger.warn({ err }, 'audit event dropped');
    }
  }

  /**
   * Newest first. With a tenant, that tenant's ring only; without, every ring (events of no
   * tenant included), merged by id. Ids are one sequence across rings, so the merge is exact.
   */
  list(query: AuditQuery): Promise<RecordedAuditEvent[]> {
    const wanted = Math.min(Math.max(query.limit ?? 100, 1), MAX_AUDIT_LIST);
    const rings =
      query.tenantId === undefined
        ? [this.untenanted, ...this.tenants.values()]
        : [this.tenants.get(query.tenantId)].filter((ring) => ring !== undefined);
    const found = rings.flatMap((ring) => take(ring, query, wanted));
    if (rings.length > 1) found.sort((a, b) => b.id - a.id);
    return Promise.resolve(found.slice(0, wanted));
  }

  /** Recorded is held: nothing to wait for. */
  flush(): Promise<void> {
    return Promise.resolve();
  }

  /** The last summaries are recorded while the app still answers tests and `svc run`. */
  onApplicationShutdown(): void {
    this.collectLastEvents();
  }

  private ringFor(tenantId: string | undefined): AuditRing {
    if (tenantId === undefined) return this.untenanted;
    // The tenant written last is already where the order wants it (the common case: one
    // tenant's requests in a row), so its ring is not moved again.
    if (tenantId === this.lastWritten?.tenantId) return this.lastWritten.ring;
    let ring = this.tenants.get(tenantId);
    if (ring) {
      this.tenants.delete(tenantId);
    } else {
      if (this.tenants.size >= this.limits.maxTenants) this.dropLeastRecentlyWritten();
      ring = new AuditRing(this.limits.eventsPerTenant);
    }
    this.tenants.set(tenantId, ring);
    this.lastWritten = { tenantId, ring };
    return ring;
  }

  private dropLeastRecentlyWritten(): void {
    const [victim] = this.tenants;
    if (!victim) return;
    const [tenantId, ring] = victim;
    this.tenants.delete(tenantId);
    this.logger.warn(
      { tenant_id: tenantId, events: ring.size, max_tenants: this.limits.maxTenants },
      'audit events of the least recently written tenant dropped to make room for a new tenant',
    );
  }
}

/** Up to `wanted` events of `ring` that the query selects, newest first. */
function take(
  ring: AuditRing,
  query: AuditFilter & { beforeId?: number },
  wanted: number,
): RecordedAuditEvent[] {
  const found: RecordedAuditEvent[] = [];
  for (const event of ring.newestFirst()) {
    if (found.length >= wanted) break;
    if (query.beforeId !== undefined && event.id >= query.beforeId) continue;
    if (matchesAudit(event, query)) found.push(event);
  }
  return found;
}
