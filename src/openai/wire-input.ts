import { ValidationProblem } from '../platform/http/problem.js';
import type { JsonValue } from '../platform/state/state-store.js';
import type { ChatMessage } from '../providers/chat.types.js';
import type { WireMessageDto } from './dto/chat-completion.dto.js';

/** A message's text: a string, or the text of its content parts (other parts are refused). */
function textOf(content: JsonValue, path: string, role: string): string {
  if (typeof content === 'string') return content;
  if (content === null && role === 'assistant') return '';
  if (!Array.isArray(content)) {
    throw new ValidationProblem([{ path, message: 'content must be a string or content parts' }]);
  }
  return content
    .map((part, index) => {
      const isText =
        part !== null &&
        typeof part === 'object' &&
        !Array.isArray(part) &&
        part.type === 'text' &&
        typeof part.text === 'string';
      if (!isText) {
        throw new ValidationProblem([
          { path: `${path}[${index}]`, message: 'only text content parts are taken' },
        ]);
      }
      return part.text as string;
    })
    .join('');
}

/**
 * The run's input from OpenAI messages. `developer` is a system message. Tool (and function)
 * messages and an assistant's tool (or function) calls are refused: the agent calls its own tools inside the gateway, so a
 * client has none to report. Continuing a session (`X-Session-Id`), the session already holds
 * the conversation: only the messages after the last assistant message are new.
 */
export function runInput(messages: readonly WireMessageDto[], continuing: boolean): ChatMessage[] {
  const input = messages.map((message, index): ChatMessage => {
    const path = `messages[${index}]`;
    const calls = message.tool_calls ?? message.function_call;
    if (
      message.role === 'tool' ||
      message.role === 'function' ||
      (calls !== undefined && calls !== null)
    ) {
      throw new ValidationProblem([
        {
          path,
          message:
            'tool calls and tool messages are the agent’s own: its tools run inside the gateway; send text messages',
        },
      ]);
    }
    const role = message.role === 'developer' ? 'system' : message.role;
    return { role, content: textOf(message.content, `${path}.content`, message.role) };
  });
  if (!continuing) return input;
  const fresh = input.slice(input.findLastIndex((message) => message.role === 'assistant') + 1);
  if (fresh.length === 0) {
    throw new ValidationProblem([
      { path: 'messages', message: 'nothing new after the last assistant message' },
    ]);
  }
  return fresh;
}
