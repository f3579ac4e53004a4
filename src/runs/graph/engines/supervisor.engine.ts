import { Injectable } from '@nestjs/common';
import type { ChatMessage, ToolCall } from '../../../providers/chat.types.js';
import type { SupervisorState } from '../graph-run-state.js';
import { ToolCallBudget } from '../../loop/tool-call-budget.js';
import { toolReply } from '../../loop/tool-result-content.js';
import type { JsonValue } from '../../../platform/state/state-store.js';
import type { GraphExecution } from '../graph-execution.js';
import { GraphEngine } from './graph-engine.js';

const asText = (value: JsonValue | undefined): string =>
  typeof value === 'string' ? value : JSON.stringify(value ?? null);

/** The supervisor's instructions, first in its conversation. */
export function supervisorPrompt(budget: number): string {
  return (
    'You are a supervisor. Answer the request by delegating to your workers, which are your ' +
    `tools. At most ${budget} worker calls may run in all. When you have the answer, reply ` +
    'with it and call no worker.'
  );
}

/** Worker calls the supervisor's model asked for so far (answered or not), from its conversation. */
function requestedCalls(messages: readonly ChatMessage[]): number {
  return messages.reduce((sum, message) => sum + (message.tool_calls?.length ?? 0), 0);
}

/**
 * A model chooses the next worker (a step) each turn until it answers. The budget counts worker
 * calls that start, is checkpointed before each one, and is never exceeded: a call beyond it gets
 * an error result, and once it is spent the model is offered no workers. Model turns are bounded
 * by the run's `max_turns`. Apart from the budget, an answer asking for more worker calls than
 * SVC_MAX_TOOL_CALLS_PER_TURN, or more than SVC_MAX_TOOL_CALLS_PER_RUN in all, fails the run
 * (502 `too-many-tool-calls`) before any of them is queued, as in a plain run's loop.
 */
@Injectable()
export class SupervisorEngine extends GraphEngine {
  async advance(run: GraphExecution): Promise<void> {
    const state = run.state.supervisor;
    if (!state) throw new Error(`supervisor run ${run.record.run_id} has no supervisor state`);
    for (;;) {
      while (state.queue.length > 0) {
        const call = state.queue[0];
        const reply = await this.answer(run, state, call);
        if (reply === 'paused') return;
        state.messages.push(reply);
        state.queue.shift();
        delete state.started_call;
        await run.checkpoint();
      }
      const last = state.messages.at(-1);
      if (last?.role === 'assistant') {
        // Answered (perhaps just before a takeover): nothing more to do.
        run.answer = { text: last.content, finishReason: 'stop' };
        return;
      }
      if (state.turns >= run.state.max_turns) {
        const reply = state.messages.findLast((message) => message.role === 'assistant');
        run.answer = { text: reply?.content ?? '', finishReason: 'max_turns' };
        return;
      }
      const workers = state.used < state.budget ? await run.workers() : [];
      const completion = await run.complete(state.messages, workers);
      const calls = completion.message.tool_calls ?? [];
      new ToolCallBudget(run.limits, requestedCalls(state.messages)).admit(calls.length);
      state.turns += 1;
      run.record.turns += 1;
      state.messages.push(completion.message);
      state.queue.push(...calls);
      await run.checkpoint();
    }
  }

  /** The tool message answering one worker call, or `paused` while it waits for approval. */
  private async answer(
    run: GraphExecution,
    state: SupervisorState,
    call: ToolCall,
  ): Promise<ChatMessage | 'paused'> {
    const reply = (content: string) => toolReply(call, content, run.limits.toolResultMaxBytes);
    if (!run.state.definition.some((step) => step.id === call.name)) {
      return reply(`error: there is no worker "${call.name}"`);
    }
    const started = state.started_call === call.id;
    if (!started && state.used >= state.budget) {
      return reply('error: the step budget is spent; answer with what you have');
    }
    if (await run.awaitsApproval(call.name, call.id)) return 'paused';
    if (!started) {
      state.used += 1;
      state.started_call = call.id;
    }
    const step = await run.runStep(call.name, call.arguments, call.id);
    return reply(step.status === 'completed' ? asText(step.output) : `error: ${step.error ?? ''}`);
  }
}
