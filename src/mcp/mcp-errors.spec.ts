import { describe, expect, it, jest } from '@jest/globals';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { Logger } from '@nestjs/common';
import { RetryLaterProblem } from '../platform/http/problem.js';
import { StateUnavailableError } from '../platform/state/state-store.js';
import { toRpcError } from './mcp-errors.js';

describe('toRpcError', () => {
  const logger = new Logger('test');

  it('answers an unavailable state backend with the 503 problem and retry_after in data', () => {
    const error = toRpcError(
      new StateUnavailableError('the state backend cannot be reached'),
      logger,
    );
    expect({ code: error.code, message: error.message, data: error.data }).toEqual({
      code: ErrorCode.InternalError,
      message: 'the state backend cannot be reached',
      data: { type: 'urn:svc:problem:state-unavailable', status: 503, retry_after: 5 },
    });
  });

  it('passes a run stopped by the outage on the same way', () => {
    const stopped = new RetryLaterProblem(503, 'run "r" goes on later', 'state-unavailable', 5);
    expect(toRpcError(stopped, logger).data).toEqual({
      type: 'urn:svc:problem:state-unavailable',
      status: 503,
      retry_after: 5,
    });
  });

  it('keeps internals of anything else out of the answer, and logs it', () => {
    const error = jest.spyOn(logger, 'error').mockImplementation(() => undefined);
    const answer = toRpcError(new Error('secret detail'), logger);
    expect({ message: answer.message, data: answer.data }).toEqual({
      message: 'an unexpected error occurred',
      data: undefined,
    });
    expect(error).toHaveBeenCalledTimes(1);
  });
});
