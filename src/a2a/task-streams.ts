import { Injectable } from '@nestjs/common';
import type { StreamResponse } from '@a2a-js/sdk';
import { UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { RunEventFeed } from '../runs/events/run-event-feed.js';
import { answerDelta, runAtEnd } from '../runs/events/run-event-reading.js';
import { type RunRecord, TERMINAL_STATUSES } from '../runs/record/run-record.js';
import { answerArtifact, toTask } from './task-shapes.js';

/**
 * A task's updates from its run's event log: each piece of the model's text appended to the
 * `answer` artifact (a graph's steps are internal), then the final status, with the whole
 * answer when none was streamed. A stream ends when the task ends or waits for input.
 */
@Injectable()
export class A2ATaskStreams {
  constructor(private readonly feed: RunEventFeed) {}

  /**
   * SubscribeToTask: the task as it is now, then its updates until it ends or stops for input
   * again. A task that ended is refused (A2A section 3.1.6); one waiting for input is answered
   * as it is. The log is replayed from its start (the answer streamed so far), but a pause that
   * happened before the subscription, and that a decision ended, does not end it: `read` gives
   * the run as it is now, and the log's last id is taken before it, so the pauses up to there
   * are known to be over when the run says it is running.
   */
  async *subscribe(
    tenantId: string,
    runId: string,
    read: () => Promise<RunRecord>,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    const pastUpTo = await this.feed.lastId(tenantId, runId);
    const run = await read();
    if (TERMINAL_STATUSES.has(run.status)) {
      throw new UnsupportedOperationError(
        `task ${JSON.stringify(run.run_id)} is ${run.status}; only a task that has not ended can be subscribed to (GetTask reads it)`,
      );
    }
    yield { payload: { $case: 'task', value: toTask(run) } };
    if (run.status === 'paused') return;
    yield* this.follow(tenantId, run, false, pastUpTo);
  }

  /**
   * The updates of a run from the start of its log, until it settles or stops for input after
   * event `pastUpTo`; `ended`: the run has already settled (only its final updates are due).
   */
  async *follow(
    tenantId: string,
    run: RunRecord,
    ended: boolean,
    pastUpTo = 0,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    const ids = { taskId: run.run_id, contextId: run.session_id };
    if (ended) {
      yield* final(run, false);
      return;
    }
    const stop = new AbortController();
    let streamed = false;
    try {
      for await (const batch of this.feed.follow(tenantId, run.run_id, 0, stop.signal)) {
        for (const event of batch) {
          const text = answerDelta(event);
          if (text) {
            yield {
              payload: {
                $case: 'artifactUpdate',
                value: {
                  ...ids,
                  artifact: answerArtifact(run, text),
                  append: streamed,
                  lastChunk: false,
                  metadata: undefined,
                },
              },
            };
            streamed = true;
          }
          const settled = runAtEnd(event, pastUpTo);
          if (settled) {
            yield* final(settled, streamed);
            return;
          }
        }
      }
    } finally {
      stop.abort();
    }
  }
}

/** The updates that end a stream: the answer when it was not streamed, and the final status. */
function* final(run: RunRecord, streamed: boolean): Generator<StreamResponse, void, undefined> {
  const task = toTask(run);
  const ids = { taskId: task.id, contextId: task.contextId };
  if (run.status === 'completed' && !streamed) {
    yield {
      payload: {
        $case: 'artifactUpdate',
        value: {
          ...ids,
          artifact: answerArtifact(run),
          append: false,
          lastChunk: true,
          metadata: undefined,
        },
      },
    };
  }
  yield {
    payload: { $case: 'statusUpdate', value: { ...ids, status: task.status, metadata: undefined } },
  };
}
