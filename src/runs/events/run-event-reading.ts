import type { RunRecord } from '../record/run-record.js';
import type { RunEvent } from './run-event.js';

/**
 * A piece of the run's own answer as the model writes it (`model.delta` text), not of a graph's
 * steps, whose text is internal: what the wires that stream an answer (OpenAI, A2A) pass on.
 */
export function answerDelta(event: RunEvent): string | undefined {
  if (event.type !== 'model.delta' || event.data.step !== undefined) return undefined;
  return typeof event.data.text === 'string' ? event.data.text : undefined;
}

/**
 * The run as the event that ends a stream of it (settled, or paused for an approval) holds it.
 * A pause is an end only when it is news: a reader that caught up with the log at event
 * `pastUpTo` (and read a run that went on since) skips the pauses up to there, which a
 * decision has already ended, and follows the run to where it stops now.
 */
export function runAtEnd(event: RunEvent, pastUpTo = 0): RunRecord | undefined {
  if (event.type === 'run.paused' && event.id <= pastUpTo) return undefined;
  if (event.type !== 'run.settled' && event.type !== 'run.paused') return undefined;
  // The event log holds the run as GET /v1/runs/{id} answers it.
  return event.data.run as unknown as RunRecord;
}
