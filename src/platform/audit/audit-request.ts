import type { Principal } from '../auth/principal.js';
import { ValidationProblem } from '../http/problem.js';
import type { AuditFilter } from './audit-sink.js';
import type { AuditFilterDto } from './dto/audit-query.dto.js';

/**
 * The filter a request asks for. A tenant-bound key only ever reads its own tenant (naming
 * another is 403 in the AuthGuard); an unbound key reads every tenant unless it names one.
 */
export function auditFilterOf(query: AuditFilterDto, principal: Principal): AuditFilter {
  const since = query.since === undefined ? undefined : Date.parse(query.since);
  const until = query.until === undefined ? undefined : Date.parse(query.until);
  if (since !== undefined && until !== undefined && since >= until) {
    throw new ValidationProblem(
      [{ path: 'until', message: 'until must be later than since' }],
      'until must be later than since',
    );
  }
  const prefix = query.kind?.endsWith('.*') ? query.kind.slice(0, -1) : undefined;
  return {
    tenantId: principal.tenantId ?? query.tenant_id,
    ...(prefix !== undefined ? { kindPrefix: prefix } : { kind: query.kind }),
    runId: query.run_id,
    actor: query.actor,
    since,
    until,
  };
}
