import { AsyncLocalStorage } from 'node:async_hooks';

/** What every log line written while a request is handled says about it (`req`). */
export interface RequestLogFields {
  id: string;
  method: string;
  path: string;
  remote?: string;
}

const scope = new AsyncLocalStorage<RequestLogFields>();

/** Runs `handle` (the rest of the request) with `fields` as its request scope. */
export function inRequestScope(fields: RequestLogFields, handle: () => void): void {
  scope.run(fields, handle);
}

/**
 * The `req` field of a log line written inside a request, or nothing. Read by the logger's
 * mixin, so a request costs no child logger: its fields are looked up only when a line is
 * actually written.
 */
export function requestLogFields(): { req?: RequestLogFields } {
  const fields = scope.getStore();
  return fields ? { req: fields } : {};
}
