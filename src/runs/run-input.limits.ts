import { ValidationProblem } from '../platform/http/problem.js';
import type { ChatMessage } from '../providers/chat.types.js';

/** Characters one message of a run's input may have (a prompt, a message's content). */
export const MAX_INPUT_CHARS = 200_000;
/** Messages one run's input may have. */
export const MAX_INPUT_MESSAGES = 200;

/**
 * The bounds of a run's input, the same from every wire (REST, the OpenAI-compatible route,
 * A2A, MCP's run_agent, chat messages): AgentRunner checks them for every run, so a wire that
 * builds its input another way cannot pass more. The REST DTO declares the same numbers, so its
 * 400 names the field; another wire's refusal names the message by its place in the input.
 */
export function checkRunInput(input: readonly ChatMessage[]): void {
  if (input.length > MAX_INPUT_MESSAGES) {
    throw new ValidationProblem(
      [{ path: 'messages', message: `a run takes at most ${MAX_INPUT_MESSAGES} messages` }],
      `a run takes at most ${MAX_INPUT_MESSAGES} messages; this one has ${input.length}`,
    );
  }
  const long = input.findIndex((message) => message.content.length > MAX_INPUT_CHARS);
  if (long >= 0) {
    const detail = `message ${long + 1} of the input has ${input[long].content.length} characters; a message may have at most ${MAX_INPUT_CHARS}`;
    throw new ValidationProblem([{ path: `messages[${long}].content`, message: detail }], detail);
  }
}
