import type { JsonValue } from '../state/state-store.js';

/** What happened; dotted `<subject>.<verb>`. */
export type AuditKind =
  | 'run.started'
  | 'run.completed'
  | 'run.failed'
  | 'run.paused'
  | 'run.denied'
  | 'run.cancelled'
  | 'run.taken_over'
  | 'step.completed'
  | 'step.failed'
  | 'approval.decided'
  | 'tool.invoked'
  | 'tool.registered'
  | 'tool.deleted'
  | 'upstream.registered'
  | 'upstream.deleted'
  | 'prompt.registered'
  | 'prompt.deleted'
  | 'resource.registered'
  | 'resource.deleted'
  | 'board.changed'
  | 'budget.updated'
  | 'budget.deleted'
  | 'auth.failed'
  | 'messaging.delivery_failed';

export interface AuditEvent {
  kind: AuditKind;
  /** Unset for events that belong to no tenant (a request with a wrong key). */
  tenantId?: string;
  /** Who: the key id of the principal, when known. */
  actor?: string;
  /** Epoch milliseconds; set by the sink when omitted. */
  at?: number;
  /** Small, non-secret details (run id, tool name, status, reason). */
  details: Record<string, JsonValue>;
}

export interface RecordedAuditEvent extends AuditEvent {
  id: number;
  at: number;
}
