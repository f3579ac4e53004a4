import { Type } from 'class-transformer';
import { IsISO8601, IsInt, IsString, Matches, Max, Min, ValidateBy } from 'class-validator';
import { Identifier, TenantId } from '../../http/dto/identifier.js';
import { IfPresent } from '../../http/dto/if-present.js';
import { MAX_RUN_ID } from '../../state/state-key.limits.js';
import { decodeAuditCursor } from '../audit-cursor.js';
import { MAX_AUDIT_PAGE } from '../audit-sink.js';

/** `run.completed` exactly, or `run.*` for every kind of a subject. */
const KIND = /^[a-z][a-z_]{0,30}(\.(\*|[a-z][a-z_]{0,30}))?$/;

const ISO_TIME = { message: '$property must be an ISO 8601 time (2026-01-31T12:00:00Z)' };

/** The filters of GET /v1/audit and GET /v1/audit/export. */
export class AuditFilterDto {
  @IfPresent() @TenantId() tenant_id?: string;

  @IfPresent()
  @IsString()
  @Matches(KIND, { message: 'kind must be an event kind (run.completed) or a prefix (run.*)' })
  kind?: string;

  @IfPresent() @Identifier(MAX_RUN_ID) run_id?: string;
  @IfPresent() @Identifier(256) actor?: string;
  @IfPresent() @IsISO8601({ strict: true }, ISO_TIME) since?: string;
  @IfPresent() @IsISO8601({ strict: true }, ISO_TIME) until?: string;
}

/** GET /v1/audit: the filters, a page size and where to go on from. */
export class AuditQueryDto extends AuditFilterDto {
  @IfPresent() @Type(() => Number) @IsInt() @Min(1) @Max(MAX_AUDIT_PAGE) limit?: number;

  @IfPresent()
  @IsString()
  @ValidateBy({
    name: 'auditCursor',
    validator: {
      validate: (value: unknown) =>
        typeof value === 'string' && decodeAuditCursor(value) !== undefined,
      defaultMessage: () => 'cursor must be a next_cursor this gateway returned',
    },
  })
  cursor?: string;
}
