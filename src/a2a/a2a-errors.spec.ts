import { describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { isJsonRpcError, isRestError, toJsonRpcError, toRestErrorBody } from '@a2a-js/sdk/errors';
import { ProblemException, ValidationProblem } from '../platform/http/problem.js';
import { A2ATenantError } from './a2a-caller.js';
import { statusOfCode, toA2AError } from './a2a-errors.js';

describe('gateway errors as A2A errors', () => {
  it('maps client errors to A2A’s own errors, the same on both bindings', () => {
    const invalid = new ValidationProblem([{ path: 'x', message: 'x is wrong' }], 'x is wrong');
    expect(toJsonRpcError(toA2AError(invalid, 'jsonrpc')).code).toBe(-32602);
    expect(toRestErrorBody(toA2AError(invalid, 'rest'), 400).error.status).toBe('INVALID_ARGUMENT');
    const missing = new ProblemException(404, 'no run "r"', 'run-not-found');
    expect(toJsonRpcError(toA2AError(missing, 'jsonrpc')).code).toBe(-32001);
    const busy = new ProblemException(409, 'ended', 'run-completed');
    expect(toJsonRpcError(toA2AError(busy, 'jsonrpc', true)).code).toBe(-32002);
  });

  it('keeps the HTTP status of the refusals A2A has no error for', () => {
    const cases: Array<[unknown, number]> = [
      [new A2ATenantError('this key may only act for tenant "b"', true), 403],
      [new ProblemException(403, 'needs approve:*'), 403],
      [new ProblemException(404, 'no agent "x"', 'agent-not-found'), 404],
      [new ProblemException(409, 'another agent’s run', 'run-id-conflict'), 409],
      [new ProblemException(429, 'slow down', 'rate-limited'), 429],
      [new ProblemException(503, 'backend away', 'state-unavailable'), 503],
    ];
    for (const [error, status] of cases) {
      const rpc = toA2AError(error, 'jsonrpc');
      expect(isJsonRpcError(rpc)).toBe(true);
      expect(statusOfCode(toJsonRpcError(rpc).code)).toBe(status);
      const rest = toA2AError(error, 'rest');
      expect(isRestError(rest) && rest.statusCode).toBe(status);
    }
    // A tenant that is no identifier is the caller's mistake, not a refusal.
    expect(toJsonRpcError(toA2AError(new A2ATenantError('too long'), 'jsonrpc')).code).toBe(-32602);
  });

  it('answers a fault beyond the request as an internal error, and says nothing of a bug', () => {
    const down = toA2AError(new ProblemException(502, 'the model endpoint failed'), 'jsonrpc');
    expect(toJsonRpcError(down)).toMatchObject({ code: -32603 });
    const rest = toA2AError(new ProblemException(503, 'backend away'), 'rest');
    expect(isRestError(rest) && rest.statusCode).toBe(503);
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const bug = toA2AError(new TypeError('cannot read x of undefined'), 'jsonrpc');
    expect(toJsonRpcError(bug)).toEqual({ code: -32603, message: 'an unexpected error occurred' });
    expect(logged).toHaveBeenCalled();
    logged.mockRestore();
  });
});
