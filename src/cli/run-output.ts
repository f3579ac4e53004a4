import type { RunRecord } from '../runs/record/run-record.js';
import { CliFailure } from './cli-errors.js';

/** The line after a run's reply: turns, tool calls, finish reason and session. */
export function summaryLine(record: RunRecord): string {
  return (
    `turns: ${record.turns} · tool calls: ${record.tool_calls} · finish: ${record.finish_reason} · ` +
    `session: ${record.session_id}\n`
  );
}

/** What `svc run` prints for a run that ended (or paused) without --json. */
export function humanOutput(record: RunRecord): string {
  if (record.status === 'paused') {
    return (
      `run ${record.run_id} paused: node ${record.pending_node ?? '?'} waits for approval ` +
      `(POST /v1/runs/${record.run_id}/approve or /deny)\n`
    );
  }
  return `${record.text}\n\n${summaryLine(record)}`;
}

/**
 * A settled run that did not do its work is a failed command, said as a plain run's problem
 * answer says it (`run failed (502): …`), so streamed and unstreamed runs exit alike.
 */
export function checkOutcome(record: RunRecord): void {
  if (record.status === 'failed') {
    const status = record.error?.status ?? 500;
    throw new CliFailure(`run failed (${status}): ${record.error?.detail ?? 'the run failed'}`);
  }
  if (record.status === 'cancelled') throw new CliFailure(`run ${record.run_id} was cancelled`);
}
