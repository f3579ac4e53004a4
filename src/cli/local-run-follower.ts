import type { INestApplicationContext } from '@nestjs/common';
import { AgentRunner } from '../runs/agent-runner.service.js';
import { MAX_EVENTS_PAGE } from '../runs/dto/run-events-query.dto.js';
import type { RunEvent } from '../runs/events/run-event.js';
import { RunEventFeed } from '../runs/events/run-event-feed.js';
import { RunStreams } from '../runs/events/run-streams.js';
import type { RunRecord } from '../runs/record/run-record.js';
import { type RunRequest, withRunId } from '../runs/run-request.js';

type Outcome = { record: RunRecord } | { error: unknown };

/**
 * `svc run --stream` without a server: runs `request` here as a streamed run and hands each of
 * its events to `show` as this process writes it (the same feed a gateway's streams read),
 * then answers as the runner does (its record, or its error).
 */
export async function followLocalRun(
  app: INestApplicationContext,
  request: RunRequest,
  show: (event: RunEvent) => void,
): Promise<RunRecord> {
  const identified = withRunId(request);
  const { tenantId, runId } = identified;
  const done = new AbortController();
  const outcome: Promise<Outcome> = app
    .get(AgentRunner)
    .run({ ...identified, deltas: true })
    .then(
      (record) => ({ record }),
      (error: unknown) => ({ error }),
    )
    .finally(() => done.abort());
  let last = 0;
  const showNew = (events: RunEvent[]) => {
    for (const event of events) {
      if (event.id <= last) continue;
      last = event.id;
      show(event);
    }
  };
  try {
    for await (const batch of app.get(RunEventFeed).follow(tenantId, runId, 0, done.signal)) {
      showNew(batch);
    }
  } catch {
    // Live delivery failed (the state backend): the log is read once the run has answered.
  }
  const result = await outcome;
  // The run answers once its log is written: what the feed had not handed over yet is there.
  const streams = app.get(RunStreams);
  for (;;) {
    const page = await streams.page(tenantId, runId, last, MAX_EVENTS_PAGE).catch(() => null);
    if (!page) break;
    showNew(page.events);
    if (page.events.length < MAX_EVENTS_PAGE) break;
  }
  if ('error' in result) throw result.error;
  return result.record;
}
