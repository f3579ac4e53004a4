import type { Message, Task } from '@a2a-js/sdk';
import { UnsupportedOperationError } from '@a2a-js/sdk/errors';
import type { Client } from '@a2a-js/sdk/client';
import { TaskState } from './a2a-sdk.js';

/** States a task does not leave without its client: ended, or waiting for input. */
const SETTLED: ReadonlySet<TaskState> = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
  TaskState.TASK_STATE_INPUT_REQUIRED,
  TaskState.TASK_STATE_AUTH_REQUIRED,
]);

/** GetTask polling: the first wait, each next one twice as long, up to the last. */
const POLL_FIRST_MS = 200;
const POLL_MAX_MS = 5_000;

export const isSettled = (task: Task): boolean =>
  SETTLED.has(task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED);

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', abort);
      resolve();
    }, ms);
    const abort = () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', abort, { once: true });
  });
}

/**
 * Follows a remote agent's task from where it stands to where it stops (it ended, or waits for
 * input this call cannot give): by its stream when the agent's card says it streams
 * (SubscribeToTask), else by GetTask with a growing wait. Either way the task is read whole at
 * the end, artifacts and all. `signal` bounds it (the call's timeout and cancellation).
 */
export async function followTask(client: Client, task: Task, signal: AbortSignal): Promise<Task> {
  let current = task;
  const streams = (await client.getAgentCard({ signal })).capabilities?.streaming === true;
  if (streams && !isSettled(current)) {
    try {
      for await (const event of client.resubscribeTask({ tenant: '', id: task.id }, { signal })) {
        const state =
          event.payload?.$case === 'statusUpdate'
            ? event.payload.value.status?.state
            : event.payload?.$case === 'task'
              ? event.payload.value.status?.state
              : undefined;
        if (state !== undefined && SETTLED.has(state)) break;
      }
    } catch (error) {
      // It ended between the send and the subscription: read it.
      if (!(error instanceof UnsupportedOperationError)) throw error;
    }
    current = await client.getTask({ tenant: '', id: task.id }, { signal });
  }
  for (let wait = POLL_FIRST_MS; !isSettled(current); wait = Math.min(wait * 2, POLL_MAX_MS)) {
    await sleep(wait, signal);
    current = await client.getTask({ tenant: '', id: task.id }, { signal });
  }
  return current;
}

/** A send's answer is a task (a direct message needs no following). */
export const isTask = (result: Message | Task): result is Task => 'status' in result;
