import type { ChatMessage } from '../../providers/chat.types.js';
import type { Conversation } from '../../sessions/conversation.store.js';
import type {
  InFlightTurn,
  PlainCheckpoint,
  RunFinishReason,
  StoredRun,
} from '../record/run-record.js';

type LoopFinish = Exclude<RunFinishReason, 'error'>;
const FINISHES: ReadonlySet<string> = new Set(['stop', 'max_turns', 'length']);

/** Where a plain run stands: what it has done, and what it goes on from. */
export interface PlainProgress {
  /** The session as it was before this run (what the run's own messages follow). */
  from: Pick<Conversation, 'messages' | 'trimmed'>;
  /** The run's own messages in the session: its input, then its completed turns. */
  own: ChatMessage[];
  /** Completed turns, and the tool calls made in them. */
  turns: number;
  toolCalls: number;
  /** The next turn, when its answer was checkpointed before all its tool calls came back. */
  inFlight: InFlightTurn | null;
  /** Set when the loop had ended: the session holds the run's answer. */
  finished?: LoopFinish;
  /** The session's version, which the run's next write must be at. */
  sessionVersion: number;
}

export type ProgressRead = { ok: true; progress: PlainProgress } | { ok: false; reason: string };

/**
 * Whether the run may have written its session: once a turn with tool calls has all its
 * results, the turn may have been saved (and its mark overwritten by a later run since). A run
 * still at its first model answer, or inside its first turn's tool calls, has written nothing.
 */
function mayHaveWritten(loop: PlainCheckpoint): boolean {
  const turn = loop.turn;
  if (!turn) return false;
  return turn.number > 1 || turn.results.length >= (turn.answer.tool_calls?.length ?? 0);
}

/**
 * Reads a plain run's progress from its record and its session. Completed turns live in the
 * session, marked with the run (SessionRunMark), and only the turn in flight in the record:
 * whatever a process did before it stopped, these two say exactly which model answers and tool
 * results exist, so a run goes on without asking the model again for a turn it answered or
 * repeating a tool call that came back. A run that has not written its session goes on after
 * what other runs wrote there meanwhile; one that may have written it, and whose session another
 * run wrote since, cannot be continued (it fails with 409 `session-conflict`).
 */
export function readPlainProgress(
  run: StoredRun,
  loop: PlainCheckpoint,
  session: Conversation,
): ProgressRead {
  const mark = session.run;
  if (mark?.id === run.run_id) {
    const cut = session.messages.length - mark.own;
    if (cut < 0) return { ok: false, reason: "the session lost some of the run's messages" };
    return {
      ok: true,
      progress: {
        from: { messages: session.messages.slice(0, cut), trimmed: session.trimmed },
        own: session.messages.slice(cut),
        turns: mark.turns,
        toolCalls: mark.tool_calls,
        inFlight: loop.turn && loop.turn.number > mark.turns ? loop.turn : null,
        ...(mark.finish !== undefined && FINISHES.has(mark.finish)
          ? { finished: mark.finish as LoopFinish }
          : {}),
        sessionVersion: session.version,
      },
    };
  }
  if (session.version !== loop.session_version && mayHaveWritten(loop)) {
    return { ok: false, reason: 'another run wrote the session since this run started' };
  }
  // The run has not written the session: it goes on after whatever other runs wrote there since
  // (a run stopped by an outage or a drain lets the session's next run go first, like `enqueue`).
  return {
    ok: true,
    progress: {
      from: session,
      own: run.messages,
      turns: 0,
      toolCalls: 0,
      inFlight: loop.turn,
      sessionVersion: session.version,
    },
  };
}
