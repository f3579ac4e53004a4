import type { RunStatus } from '../runs/record/run-record.js';
import type { StudioCounts } from './studio-records.js';

/** A queued run counts as running (it is under way); a cancelled one as denied (stopped by a person). */
export const STATUS_COUNT: Record<RunStatus, keyof StudioCounts> = {
  queued: 'running_loops',
  running: 'running_loops',
  cancelled: 'denied_loops',
  paused: 'paused_loops',
  completed: 'completed_loops',
  failed: 'failed_loops',
  denied: 'denied_loops',
};

export function emptyCounts(): StudioCounts {
  return {
    sessions: 0,
    loops: 0,
    running_loops: 0,
    paused_loops: 0,
    completed_loops: 0,
    failed_loops: 0,
    denied_loops: 0,
  };
}
