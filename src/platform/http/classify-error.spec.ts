import { describe, expect, it } from '@jest/globals';
import { HttpException } from '@nestjs/common';
import { QueryFailedError } from 'typeorm';
import { StateUnavailableError } from '../state/state-store.js';
import { classifyStateError } from '../state/state-unavailable.js';
import { classifyError } from './classify-error.js';
import { RetryLaterProblem } from './problem.js';

describe('classifyError', () => {
  it('answers an unreachable state backend with 503 state-unavailable and Retry-After', () => {
    const cut = new QueryFailedError(
      'SELECT 1',
      [],
      new Error('Connection terminated unexpectedly'),
    );
    expect(classifyError(classifyStateError(cut, 'postgres'))).toEqual({
      status: 503,
      detail: 'the state backend (postgres) cannot be reached; retry later',
      slug: 'state-unavailable',
      retryAfterS: 5,
    });
    expect(classifyError(new StateUnavailableError('not migrated yet'))).toMatchObject({
      status: 503,
      retryAfterS: 5,
    });
  });

  it('keeps Retry-After of a RetryLaterProblem, also when Nest wraps it', () => {
    const problem = new RetryLaterProblem(503, 'shutting down', 'shutting-down', 2);
    const expected = { status: 503, slug: 'shutting-down', retryAfterS: 2 };
    expect(classifyError(problem)).toMatchObject(expected);
    expect(classifyError(new HttpException('wrapped', 500, { cause: problem }))).toMatchObject(
      expected,
    );
  });

  it('leaves a real query error a 500 (null)', () => {
    const duplicate = new QueryFailedError(
      'INSERT',
      [],
      Object.assign(new Error('duplicate key value'), { code: '23505' }),
    );
    expect(classifyError(classifyStateError(duplicate, 'postgres'))).toBeNull();
  });
});
