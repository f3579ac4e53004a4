import type { Artifact, Message, Part, Task } from '@a2a-js/sdk';
import type { ChatMessage } from '../providers/chat.types.js';
import type { RunRecord, RunStatus } from '../runs/record/run-record.js';
import { Role, TaskState } from '../tools/a2a/a2a-sdk.js';

/** A run's status as an A2A task state (an approval a graph waits for is input the task needs). */
const STATES: Record<RunStatus, TaskState> = {
  queued: TaskState.TASK_STATE_SUBMITTED,
  running: TaskState.TASK_STATE_WORKING,
  paused: TaskState.TASK_STATE_INPUT_REQUIRED,
  completed: TaskState.TASK_STATE_COMPLETED,
  failed: TaskState.TASK_STATE_FAILED,
  cancelled: TaskState.TASK_STATE_CANCELED,
  denied: TaskState.TASK_STATE_REJECTED,
};

export const taskStateOf = (status: RunStatus): TaskState => STATES[status];

/** The run statuses a task in `state` may have (ListTasks' status filter). */
export function statusesOf(state: TaskState): RunStatus[] {
  return (Object.keys(STATES) as RunStatus[]).filter((status) => STATES[status] === state);
}

export const textPart = (text: string): Part => ({
  content: { $case: 'text', value: text },
  metadata: undefined,
  filename: '',
  mediaType: 'text/plain',
});

/** The text of a message's text parts, joined; other parts carry nothing an agent reads. */
export function messageText(message: Message): string {
  return message.parts
    .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
    .join('');
}

function agentMessage(run: RunRecord, id: string, text: string): Message {
  return {
    messageId: id,
    contextId: run.session_id,
    taskId: run.run_id,
    role: Role.ROLE_AGENT,
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** What a task's status says besides its state: why it failed, or what it waits for. */
function statusMessage(run: RunRecord): Message | undefined {
  if (run.status === 'failed' && run.error) {
    return agentMessage(run, `${run.run_id}-status`, run.error.detail);
  }
  if (run.status === 'paused') {
    const node = run.pending_node ?? '';
    return agentMessage(
      run,
      `${run.run_id}-status`,
      `waits for an approval at node ${JSON.stringify(node)}: answer with a message whose data part is {"decision": "approve"} or {"decision": "deny"}`,
    );
  }
  return undefined;
}

/** The run's answer as the task's artifact, once it completed. */
export function answerArtifact(run: Pick<RunRecord, 'text'>, text = run.text): Artifact {
  return {
    artifactId: 'answer',
    name: 'answer',
    description: "the agent's answer",
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
  };
}

/** The conversation the run added, as A2A messages (tool traffic is the agent's own). */
function history(run: RunRecord, limit: number | undefined): Message[] {
  const said = run.messages.filter(
    (message: ChatMessage) =>
      (message.role === 'user' || message.role === 'assistant') &&
      !message.tool_calls?.length &&
      message.content !== '',
  );
  const kept = limit === undefined ? said : limit === 0 ? [] : said.slice(-limit);
  return kept.map((message, index) => ({
    ...agentMessage(run, `${run.run_id}-${index}`, message.content),
    role: message.role === 'user' ? Role.ROLE_USER : Role.ROLE_AGENT,
  }));
}

/** A run as an A2A task: the task id is the run id, its context the run's session. */
export function toTask(run: RunRecord, historyLength?: number): Task {
  return {
    id: run.run_id,
    contextId: run.session_id,
    status: {
      state: taskStateOf(run.status),
      message: statusMessage(run),
      timestamp: run.ended_at ?? run.started_at,
    },
    artifacts: run.status === 'completed' ? [answerArtifact(run)] : [],
    history: history(run, historyLength),
    metadata: {
      agent: run.agent,
      ...(run.usage && { usage: run.usage }),
    },
  };
}
