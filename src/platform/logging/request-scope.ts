import type { Context } from '@opentelemetry/api';
import { AmbientSlot } from '../context/ambient-slot.js';

/** What every log line written while a request is handled says about it (`req`). */
export interface RequestLogFields {
  id: string;
  method: string;
  path: string;
  remote?: string;
}

const scope = new AmbientSlot<RequestLogFields>('svc.request.log-fields');

/** `base` with `fields` as its request scope: the context the rest of the request runs in. */
export function inRequestScope(base: Context, fields: RequestLogFields): Context {
  return scope.in(base, fields);
}

/**
 * The `req` field of a log line written inside a request, or nothing. Read by the logger's
 * mixin, so a request costs no child logger: its fields are looked up only when a line is
 * actually written.
 */
export function requestLogFields(): { req?: RequestLogFields } {
  const fields = scope.get();
  return fields ? { req: fields } : {};
}
