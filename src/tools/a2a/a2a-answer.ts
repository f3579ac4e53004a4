import type { Message, Part, Task } from '@a2a-js/sdk';
import type { JsonValue } from '../../platform/state/state-store.js';
import type { ToolResult } from '../builtin/builtin-tool.types.js';
import { TaskState, taskStateName } from './a2a-sdk.js';

const textOf = (parts: readonly Part[]) =>
  parts
    .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
    .filter((text) => text !== '')
    .join('\n');

/** What a task ended as, when it did not complete. */
const NOT_DONE: Partial<Record<TaskState, string>> = {
  [TaskState.TASK_STATE_FAILED]: 'failed',
  [TaskState.TASK_STATE_CANCELED]: 'was cancelled',
  [TaskState.TASK_STATE_REJECTED]: 'rejected the task',
  [TaskState.TASK_STATE_INPUT_REQUIRED]: 'needs input this call cannot give',
  [TaskState.TASK_STATE_AUTH_REQUIRED]: 'needs authorization this call cannot give',
};

/**
 * A remote agent's answer as the tool's result: a completed task's artifacts (their text, and
 * their data parts as JSON), a direct message's text, or a tool error saying what stopped the
 * task (with the agent's own status message).
 */
export function a2aAnswer(result: Message | Task): ToolResult {
  if (!('status' in result)) return { result: textOf(result.parts), isError: false };
  const state = result.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED;
  if (state === TaskState.TASK_STATE_COMPLETED) {
    const parts = result.artifacts.flatMap((artifact) => artifact.parts);
    const data = parts.flatMap((part) =>
      part.content?.$case === 'data' ? [part.content.value as JsonValue] : [],
    );
    const text = textOf(parts);
    if (data.length === 0) return { result: text, isError: false };
    return { result: { text, data }, isError: false };
  }
  const said = result.status?.message ? textOf(result.status.message.parts) : '';
  const what = NOT_DONE[state] ?? `did not complete (state ${taskStateName(state) ?? state})`;
  return {
    result: `the remote agent ${what}${said ? `: ${said}` : ''}`,
    isError: true,
  };
}
