import type { ProblemDetails, ProblemMembers } from '../platform/http/problem.js';

/** OpenAI's error `type` for a problem, as its API and SDKs use them. */
function errorType(status: number, slug: string): string {
  // What OpenAI answers when an account's quota is spent (429 too, not worth retrying soon).
  if (slug === 'budget-exhausted') return 'insufficient_quota';
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 409) return 'conflict_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

/**
 * The message of a problem: its detail, with the field errors it does not already quote (a
 * validation problem's detail quotes its first errors, so they are said once).
 */
function messageOf(problem: ProblemDetails): string {
  const unsaid = (problem.errors ?? [])
    .filter((error) => !problem.detail.includes(error.message))
    .map((error) =>
      error.message.startsWith(error.path) ? error.message : `${error.path}: ${error.message}`,
    );
  return unsaid.length > 0 ? `${problem.detail}: ${unsaid.join('; ')}` : problem.detail;
}

/**
 * A problem in OpenAI's error shape, `{error: {message, type, param, code}}`: `code` is the
 * problem's slug in snake case (`model_not_found` for an unknown agent), `param` the first
 * invalid field; the request id and the problem's extension members (the budget of a
 * `budget_exhausted`) ride along.
 */
export function toOpenAiError(problem: ProblemDetails, members: ProblemMembers = {}) {
  const slug = problem.type.replace(/^urn:svc:problem:/, '');
  const code = slug === 'agent-not-found' ? 'model_not_found' : slug.replaceAll('-', '_');
  return {
    error: {
      ...members,
      message: messageOf(problem),
      type: errorType(problem.status, slug),
      param: problem.errors?.[0]?.path ?? null,
      code,
      ...(problem.request_id ? { request_id: problem.request_id } : {}),
    },
  };
}
