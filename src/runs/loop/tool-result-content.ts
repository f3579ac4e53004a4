import type { JsonValue } from '../../platform/state/state-store.js';
import type { ChatMessage, ToolCall } from '../../providers/chat.types.js';

/** Cuts `text` to at most `maxBytes` of UTF-8 without splitting a character. */
function utf8Prefix(bytes: Buffer, maxBytes: number): string {
  let end = Math.min(maxBytes, bytes.length);
  // Back up over continuation bytes (10xxxxxx) to the start of a character.
  while (end > 0 && end < bytes.length && (bytes[end] & 0xc0) === 0x80) end--;
  return bytes.toString('utf8', 0, end);
}

/**
 * At most `maxBytes` of UTF-8: a longer text keeps its beginning and says, in words the model
 * and a client can read, how much was cut.
 */
export function capText(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  const note = (kept: number) =>
    `\n[svc: tool result truncated: ${bytes.length} bytes, only the first ${kept} are shown]`;
  const room = Math.max(0, maxBytes - Buffer.byteLength(note(maxBytes)));
  const head = utf8Prefix(bytes, room);
  return head + note(Buffer.byteLength(head));
}

/**
 * What the model sees for a tool call (and the session keeps): the result as text, or the error
 * it caused, cut to `maxBytes` (SVC_TOOL_RESULT_MAX_BYTES). A tool may answer 1 MiB; a model
 * gains nothing from more than a few pages of it, and every later turn would carry it again.
 */
export function toolResultContent(result: JsonValue, isError: boolean, maxBytes: number): string {
  const text = typeof result === 'string' ? result : JSON.stringify(result);
  return capText(isError ? `error: ${text}` : text, maxBytes);
}

/**
 * The tool message answering `call`, as both model loops (AgentLoop and the supervisor) build
 * it: the call's id and name, and `content` cut to `maxBytes`.
 */
export function toolReply(call: ToolCall, content: string, maxBytes: number): ChatMessage {
  return {
    role: 'tool',
    tool_call_id: call.id,
    name: call.name,
    content: capText(content, maxBytes),
  };
}
