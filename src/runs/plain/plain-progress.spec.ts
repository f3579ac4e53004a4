import { describe, expect, it } from '@jest/globals';
import type { ChatMessage } from '../../providers/chat.types.js';
import type { Conversation } from '../../sessions/conversation.store.js';
import type { InFlightTurn, PlainCheckpoint, StoredRun } from '../record/run-record.js';
import { readPlainProgress } from './plain-progress.js';

const user = (content: string): ChatMessage => ({ role: 'user', content });
const reply = (content: string): ChatMessage => ({ role: 'assistant', content });
const asking = (id: string): ChatMessage => ({
  role: 'assistant',
  content: '',
  tool_calls: [{ id, name: 'work', arguments: {} }],
});
const result = (id: string): ChatMessage => ({
  role: 'tool',
  tool_call_id: id,
  name: 'work',
  content: 'ok',
});

const earlier = [user('hi'), reply('hello')];
const input = [user('do it')];

function checkpoint(turn: InFlightTurn | null = null): PlainCheckpoint {
  return {
    toolset: 'ops',
    max_turns: 5,
    continues_session: true,
    session_version: 3,
    turn,
  };
}

const run = { run_id: 'r1', messages: input } as StoredRun;

function session(overrides: Partial<Conversation>): Conversation {
  return { messages: earlier, trimmed: 0, version: 3, updatedAt: 1, ...overrides };
}

describe('readPlainProgress', () => {
  it('starts from the run input when the run has not written the session yet', () => {
    const inFlight = { number: 1, answer: asking('c1'), results: [] };
    const read = readPlainProgress(run, checkpoint(inFlight), session({}));
    expect(read).toEqual({
      ok: true,
      progress: {
        from: expect.objectContaining({ messages: earlier, trimmed: 0 }),
        own: input,
        turns: 0,
        toolCalls: 0,
        inFlight,
        sessionVersion: 3,
      },
    });
  });

  it('goes on after runs that wrote the session meanwhile when it has written nothing yet', () => {
    const later = [...earlier, user('meanwhile'), reply('answered')];
    const inFlight = { number: 1, answer: asking('c1'), results: [] };
    for (const turn of [null, inFlight]) {
      const read = readPlainProgress(
        run,
        checkpoint(turn),
        session({
          messages: later,
          version: 5,
          run: { id: 'other', own: 2, turns: 1, tool_calls: 0 },
        }),
      );
      expect(read.ok && read.progress).toMatchObject({
        from: { messages: later },
        own: input,
        turns: 0,
        inFlight: turn,
        sessionVersion: 5,
      });
    }
  });

  it('refuses to go on when it may have written the session and another run wrote it since', () => {
    const done = { number: 1, answer: asking('c1'), results: [result('c1')] };
    for (const turn of [done, { number: 2, answer: asking('c2'), results: [] }]) {
      const read = readPlainProgress(run, checkpoint(turn), session({ version: 4 }));
      expect(read).toEqual({ ok: false, reason: expect.stringMatching(/another run/) });
    }
  });

  it('splits the session at the run mark: completed turns come from the session, not the model', () => {
    const own = [...input, asking('c1'), result('c1')];
    const read = readPlainProgress(
      run,
      checkpoint({ number: 1, answer: asking('c1'), results: [result('c1')] }),
      session({
        messages: [...earlier, ...own],
        version: 4,
        run: { id: 'r1', own: own.length, turns: 1, tool_calls: 1 },
      }),
    );
    expect(read.ok && read.progress).toMatchObject({
      from: { messages: earlier },
      own,
      turns: 1,
      toolCalls: 1,
      // The checkpointed turn 1 is complete in the session: nothing is in flight.
      inFlight: null,
      sessionVersion: 4,
    });
  });

  it('keeps the turn after the last completed one in flight', () => {
    const own = [...input, asking('c1'), result('c1')];
    const second = { number: 2, answer: asking('c2'), results: [] };
    const read = readPlainProgress(
      run,
      checkpoint(second),
      session({
        messages: [...earlier, ...own],
        version: 4,
        run: { id: 'r1', own: own.length, turns: 1, tool_calls: 1 },
      }),
    );
    expect(read.ok && read.progress.inFlight).toEqual(second);
  });

  it('reports a loop that ended, so the run settles without another model call', () => {
    const own = [...input, reply('done')];
    const read = readPlainProgress(
      run,
      checkpoint(),
      session({
        messages: [...earlier, ...own],
        version: 4,
        run: { id: 'r1', own: own.length, turns: 1, tool_calls: 0, finish: 'stop' },
      }),
    );
    expect(read.ok && read.progress.finished).toBe('stop');
  });

  it('fails when the session holds fewer messages than the run wrote', () => {
    const read = readPlainProgress(
      run,
      checkpoint(),
      session({ version: 4, run: { id: 'r1', own: 9, turns: 2, tool_calls: 2 } }),
    );
    expect(read.ok).toBe(false);
  });
});
