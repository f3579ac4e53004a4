import { describe, expect, it } from '@jest/globals';
import type { EntryWrite } from '../platform/state/state-store.js';
import { RunEvents } from '../runs/lifecycle/run-events.js';
import type { RunRecord } from '../runs/record/run-record.js';
import type { OutboxEntry } from './outbox-entry.js';
import type { OutboxStore } from './outbox.store.js';
import { EMPTY_REPLY } from './reply-text.js';
import { SettledReplies } from './settled-replies.js';

/** The settled record's write a reply goes with. */
const SETTLED: EntryWrite = {
  key: { tenantId: 'acme', sessionId: 'run:m1', key: 'record' },
  version: 2,
  json: '{}',
};

function setUp() {
  const stored: string[] = [];
  const outbox = {
    setReply: (
      tenantId: string,
      id: string,
      reply: string,
      { claimMs, onlyIf }: { claimMs?: number; onlyIf?: EntryWrite },
    ) => {
      const claim = claimMs === undefined ? '' : `, claimed for ${claimMs} ms`;
      stored.push(`${id}: ${reply}${onlyIf === SETTLED ? ' (with its record)' : ''}${claim}`);
      return Promise.resolve({ tenantId, id, status: 'pending', reply } as unknown as OutboxEntry);
    },
  } as unknown as OutboxStore;
  const events = new RunEvents();
  const replies = new SettledReplies(outbox, events);
  replies.onModuleInit();
  const settle = (run: Partial<RunRecord>, origin?: 'messaging' | 'a2a') =>
    events.settling(
      { tenant_id: 'acme', text: '', ...run } as RunRecord,
      origin ? { origin } : {},
      { write: SETTLED, outcome: Promise.resolve() },
    );
  return { replies, stored, settle };
}

describe('SettledReplies', () => {
  it("stores a chat message's reply with its run's settled record, and nothing for other runs", async () => {
    const { replies, stored, settle } = setUp();
    settle({ run_id: 'm1', status: 'completed', text: 'hello' }, 'messaging');
    settle({ run_id: 'm2', status: 'completed', text: ' ' }, 'messaging');
    settle({ run_id: 'm3', status: 'failed' }, 'messaging');
    settle({ run_id: 'm4', status: 'paused' }, 'messaging');
    settle({ run_id: 'rest', status: 'completed', text: 'hi' });
    settle({ run_id: 'task', status: 'completed', text: 'hi' }, 'a2a');
    expect(stored).toEqual([
      'm1: hello (with its record)',
      `m2: ${EMPTY_REPLY} (with its record)`,
      'm3: Sorry, I could not answer that. (reference: m3) (with its record)',
    ]);
    // Its producer takes the entry once; a run that stored nothing here gives none.
    expect(await replies.take('acme', 'm1')).toMatchObject({
      entry: { id: 'm1', status: 'pending' },
      claimed: false,
    });
    expect(await replies.take('acme', 'm1')).toBeNull();
    expect(await replies.take('acme', 'rest')).toBeNull();
    replies.onModuleDestroy();
  });

  it('claims the delivery of a reply a producer here waits for, until it takes it', async () => {
    const { replies, stored, settle } = setUp();
    replies.expect('acme', 'm1', 40_000);
    settle({ run_id: 'm1', status: 'completed', text: 'hello' }, 'messaging');
    // A run no producer here waits for (one taken over from a replica that stopped): not claimed.
    settle({ run_id: 'm2', status: 'completed', text: 'hi' }, 'messaging');
    expect(stored).toEqual([
      'm1: hello (with its record), claimed for 40000 ms',
      'm2: hi (with its record)',
    ]);
    expect(await replies.take('acme', 'm1')).toMatchObject({ claimed: true });
    // Taken: the run is no longer expected, so settling it again (a retry) claims nothing.
    settle({ run_id: 'm1', status: 'completed', text: 'again' }, 'messaging');
    expect(stored[2]).toBe('m1: again (with its record)');
    replies.onModuleDestroy();
  });
});
