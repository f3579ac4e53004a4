import { describe, expect, it } from '@jest/globals';
import { HttpException } from '@nestjs/common';
import { QueryFailedError } from 'typeorm';
import { StateUnavailableError } from '../state/state-store.js';
import { classifyStateError } from '../state/state-unavailable.js';
import type { Request } from 'express';
import { classifyError } from './classify-error.js';
import { RetryLaterProblem } from './problem.js';
import { describeProblem, problemJson } from './problem.filter.js';

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

  it('carries a problem’s extension members into its body, never over a standard field', () => {
    const problem = new RetryLaterProblem(429, 'spent', 'budget-exhausted', 60, {
      budget: 'daily',
      limit: 10,
      status: 200,
    });
    expect(classifyError(problem)?.members).toEqual({ budget: 'daily', limit: 10, status: 200 });
    const req = { originalUrl: '/v1/agent/run', headers: {}, id: 'r1' } as unknown as Request;
    const described = describeProblem(problem, req);
    expect(described.headers).toEqual({ 'Retry-After': '60' });
    expect(JSON.parse(problemJson(described))).toEqual({
      type: 'urn:svc:problem:budget-exhausted',
      title: 'Too Many Requests',
      status: 429,
      detail: 'spent',
      instance: '/v1/agent/run',
      request_id: 'r1',
      budget: 'daily',
      limit: 10,
    });
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
