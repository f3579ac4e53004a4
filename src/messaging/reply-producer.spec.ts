import { describe, expect, it } from '@jest/globals';
import { ProblemException, RetryLaterProblem } from '../platform/http/problem.js';
import { LeaseLostError, StateUnavailableError } from '../platform/state/state-store.js';
import { finishesLater } from './reply-producer.service.js';

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
  ])('answers a run that %s (it is over)', (_, error) => {
    expect(finishesLater(error)).toBe(false);
  });
});
