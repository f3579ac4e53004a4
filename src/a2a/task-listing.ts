import { Injectable } from '@nestjs/common';
import type { ListTasksRequest, ListTasksResponse } from '@a2a-js/sdk';
import { TaskState } from '../tools/a2a/a2a-sdk.js';
import type { RunRecord } from '../runs/record/run-record.js';
import { runView } from '../runs/record/run-record.mapper.js';
import { RunRecordStore } from '../runs/record/run-record.store.js';
import {
  checkHistoryLength,
  checkPageSize,
  checkStatus,
  checkTimestamp,
  cursorOf,
  pageToken,
} from './a2a-params.js';
import { A2ATaskIndex, type IndexedTask, type TaskQuery, statusAtOf } from './task-index.js';
import { statusesOf, toTask } from './task-shapes.js';

/** Whether the run, as it is now, still matches the query its row was found by. */
function matches(run: RunRecord, query: TaskQuery): boolean {
  if (query.statuses && !query.statuses.includes(run.status)) return false;
  return query.changedSince === undefined || statusAtOf(run) >= query.changedSince;
}

/**
 * ListTasks over the task index: one agent's tasks of one tenant, newest status first, a page
 * of at most 100 read by one indexed query and the page's runs (A2A section 3.1.4: cursor
 * pagination, `nextPageToken` empty on the last page, artifacts only when asked for). A row
 * that disagrees with its run (an update that was lost) is corrected as it is read, and left
 * out when the run no longer matches; a row whose run is gone is deleted.
 */
@Injectable()
export class A2ATaskListing {
  constructor(
    private readonly index: A2ATaskIndex,
    private readonly records: RunRecordStore,
  ) {}

  async list(
    tenantId: string,
    agent: string,
    params: ListTasksRequest,
  ): Promise<ListTasksResponse> {
    const pageSize = checkPageSize(params.pageSize);
    const historyLength = checkHistoryLength(params.historyLength) ?? 0;
    const status = checkStatus(params.status);
    const query: TaskQuery = {
      tenantId,
      agent,
      ...(params.contextId && { contextId: params.contextId }),
      ...(status !== TaskState.TASK_STATE_UNSPECIFIED && { statuses: statusesOf(status) }),
      ...(params.statusTimestampAfter && {
        changedSince: checkTimestamp(params.statusTimestampAfter),
      }),
    };
    const cursor = cursorOf(params.pageToken);
    const rows = await this.index.page(query, cursor, pageSize + 1);
    const page = rows.slice(0, pageSize);
    const [runs, totalSize] = await Promise.all([
      Promise.all(page.map((row) => this.current(tenantId, row))),
      this.index.count(query),
    ]);
    const last = page.at(-1);
    return {
      tasks: runs
        .filter((run): run is RunRecord => run !== null && matches(run, query))
        .map((run) => {
          const task = toTask(run, historyLength);
          return params.includeArtifacts ? task : { ...task, artifacts: [] };
        }),
      nextPageToken: rows.length > pageSize && last ? pageToken(last) : '',
      pageSize,
      totalSize,
    };
  }

  /** The task's run as it is now, its row corrected if it said otherwise. */
  private async current(tenantId: string, row: IndexedTask): Promise<RunRecord | null> {
    const stored = await this.records.get(tenantId, row.taskId);
    if (!stored) {
      await this.index.remove(tenantId, row.taskId);
      return null;
    }
    const run = runView(stored);
    if (run.status !== row.status || statusAtOf(run) !== row.statusAt) await this.index.upsert(run);
    return run;
  }
}
