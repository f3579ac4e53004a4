import { describe, expect, it } from '@jest/globals';
import { ProblemException, RetryLaterProblem } from '../platform/http/problem.js';
import { LeaseLostError, StateUnavailableError } from '../platform/state/state-store.js';
import { BudgetExhaustedProblem } from '../usage/budgets/budget-exhausted.problem.js';
import { budgetReply, finishesLater } from './reply-producer.service.js';

const spent = new BudgetExhaustedProblem(
  'acme',
  {
    budget: 'daily',
    limit: 1000,
    source: 'tenant',
    used: 1200,
    remaining: 0,
    resets_at: '2026-11-25T00:00:00.000Z',
  },
  new Date('2026-11-24T23:00:00.000Z'),
);

describe('finishesLater', () => {
  it.each([
    ['the backend is away', new StateUnavailableError('down')],
    ['the lease was lost', new LeaseLostError('taken')],
    [
      'the run stopped here for the outage',
      new RetryLaterProblem(503, 'later', 'state-unavailable', 5),
    ],
    ['the replica is stopping', new RetryLaterProblem(503, 'later', 'shutting-down', 2)],
    ['the run runs elsewhere', new ProblemException(409, 'elsewhere', 'run-in-progress')],
    ['the session is busy', new ProblemException(409, 'busy', 'session-busy')],
    ['another replica took the run', new ProblemException(409, 'moved', 'lease-lost')],
  ])('leaves the entry for later when %s', (_, error) => {
    expect(finishesLater(error)).toBe(true);
  });

  it.each([
    ['failed on a session conflict', new ProblemException(409, 'conflict', 'session-conflict')],
    ['failed at the model', new ProblemException(502, 'model down', 'provider-failed')],
    ['hit a bug', new Error('bug')],
    ['was refused: the token budget is spent', spent],
  ])('answers a run that %s (it is over)', (_, error) => {
    expect(finishesLater(error)).toBe(false);
  });
});

describe('budgetReply', () => {
  it('tells the person which budget is spent and when to ask again', () => {
    expect(budgetReply(spent)).toBe(
      'Sorry, the daily token budget is used up, so I cannot answer now. Please ask again after 2026-11-25 00:00 UTC.',
    );
    // The problem a REST caller gets says the same, with Retry-After until the reset.
    expect(spent.getStatus()).toBe(429);
    expect(spent.retryAfterS).toBe(3600);
    expect(spent.members).toEqual({
      budget: 'daily',
      limit: 1000,
      used: 1200,
      resets_at: '2026-11-25T00:00:00.000Z',
    });
  });
});
