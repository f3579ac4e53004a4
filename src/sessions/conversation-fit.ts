import type { ChatMessage } from '../providers/chat.types.js';

/** A session keeps at most this many messages of earlier runs (whole exchanges are dropped). */
export const MAX_SESSION_MESSAGES = 500;

/**
 * Which run last wrote a session, and how far it had come: the session is where a plain run's
 * completed turns are kept, so a process taking the run over reads its progress from here.
 */
export interface SessionRunMark {
  /** The run's id. */
  id: string;
  /** Its last `own` messages are the run's (its input, then what its turns added). */
  own: number;
  /** Turns completed, and tool calls made in them. */
  turns: number;
  tool_calls: number;
  /** Set once the run's loop ended (the last own message is its answer): why it ended. */
  finish?: string;
}

/** What is stored under a session's `conversation` key. */
export interface StoredConversation {
  messages: ChatMessage[];
  /** Messages dropped from the front since the session began; absent when none were. */
  trimmed?: number;
  /** The run that wrote it last (absent in sessions written before runs were marked). */
  run?: SessionRunMark;
}

export interface FitRequest {
  /** The session's messages so far, then the running run's own (from `ownFrom` on). */
  messages: readonly ChatMessage[];
  ownFrom: number;
  /** Messages the session had dropped before. */
  trimmedBefore: number;
  maxBytes: number;
}

export type FitResult =
  | { fits: true; stored: StoredConversation; ownMessages: ChatMessage[] }
  | { fits: false; bytes: number };

const bytesOf = (value: unknown): number => Buffer.byteLength(JSON.stringify(value), 'utf8');

/** What a tool result of the running run is replaced with when even the run alone is too big. */
export function elidedResult(bytes: number, maxBytes: number): string {
  return `[svc: this tool result (${bytes} bytes) was left out of the stored session, which keeps at most ${maxBytes} bytes]`;
}

/** The message a model is given first when the session's oldest messages were dropped. */
export function trimNotice(trimmed: number): ChatMessage {
  return {
    role: 'system',
    content: `[svc: the ${trimmed} oldest messages of this conversation were dropped to keep the session within its size limit; earlier context is no longer available]`,
  };
}

/**
 * Fits a conversation into `maxBytes` of stored JSON (SVC_SESSION_MAX_BYTES) and at most
 * MAX_SESSION_MESSAGES earlier messages. First the oldest whole exchanges of earlier runs go: a
 * cut falls only before a user message, so an assistant message with tool calls always keeps its
 * tool results (OpenAI-compatible endpoints reject a history that splits them) and the history
 * still starts with a user turn. Should the running run's own messages still not fit, their tool
 * results are replaced by a short note, oldest first. Only when even that is not enough (the
 * run's input, or its model's answers, are too big) does it not fit.
 */
export function fitConversation(request: FitRequest): FitResult {
  const { messages, ownFrom, maxBytes } = request;
  const sizes = messages.map(bytesOf);
  // From index i on: the messages' bytes (with the commas between them).
  const suffix = new Array<number>(messages.length + 1).fill(0);
  for (let i = messages.length - 1; i >= 0; i--) {
    suffix[i] = sizes[i] + suffix[i + 1] + (i < messages.length - 1 ? 1 : 0);
  }
  const envelope = (trimmed: number) =>
    bytesOf({ messages: [], ...(trimmed > 0 ? { trimmed } : {}) });
  const total = (from: number) => envelope(request.trimmedBefore + from) + suffix[from];

  let cut = ownFrom;
  for (let i = 0; i < ownFrom; i++) {
    // Index 0 is where the session begins (unless a tool result was left there by older code).
    const boundary = i === 0 ? messages[0].role !== 'tool' : messages[i].role === 'user';
    if (boundary && ownFrom - i <= MAX_SESSION_MESSAGES && total(i) <= maxBytes) {
      cut = i;
      break;
    }
  }
  const trimmed = request.trimmedBefore + cut;
  const own = messages.slice(ownFrom).map((message) => ({ ...message }));
  const kept = messages.slice(cut, ownFrom);
  let bytes = total(cut);
  for (let i = 0; bytes > maxBytes && i < own.length; i++) {
    const message = own[i];
    if (message.role !== 'tool') continue;
    const note = elidedResult(Buffer.byteLength(message.content, 'utf8'), maxBytes);
    const before = bytesOf(message);
    const shorter = { ...message, content: note };
    const after = bytesOf(shorter);
    if (after >= before) continue;
    own[i] = shorter;
    bytes -= before - after;
  }
  if (bytes > maxBytes) return { fits: false, bytes };
  return {
    fits: true,
    stored: { messages: [...kept, ...own], ...(trimmed > 0 ? { trimmed } : {}) },
    ownMessages: own,
  };
}
