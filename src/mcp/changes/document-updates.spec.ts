import { describe, expect, it } from '@jest/globals';
import type { ConfigService } from '@nestjs/config';
import type { BoardService } from '../../board/board.service.js';
import type { GatewayConfig } from '../../platform/config/gateway-config.js';
import type { ServingSignal } from '../../platform/http/serving-signal.js';
import type { StateNotice, StateNotifications } from '../../platform/state/state-notifications.js';
import type { RunEventFeed } from '../../runs/events/run-event-feed.js';
import { RunEventLog } from '../../runs/events/run-event-log.js';
import type { NewRunEvent } from '../../runs/events/run-event.js';
import type { RunEventStore } from '../../runs/events/run-event.store.js';
import { ChangeNotices } from './change-notices.js';
import { DocumentUpdates } from './document-updates.js';

describe('DocumentUpdates', () => {
  it("announces a run's document with the run events that change its status, in their append", async () => {
    const appends: Array<{ types: string[]; notices: readonly StateNotice[] }> = [];
    const store = {
      append: (_t: string, _r: string, events: NewRunEvent[], notices: readonly StateNotice[]) => {
        appends.push({ types: events.map((e) => e.type), notices });
        return Promise.resolve(events.map((e, i) => ({ ...e, id: i + 1, at: '' })));
      },
    } as unknown as RunEventStore;
    const config = {
      get: () => ({ maxPerRun: 1_000, retentionMs: 60_000 }),
    } as unknown as ConfigService<GatewayConfig, true>;
    const log = new RunEventLog(
      store,
      { published: () => undefined } as unknown as RunEventFeed,
      {} as ServingSignal,
      config,
    );
    const updates = new DocumentUpdates(
      { onCardChanged: () => () => undefined } as unknown as BoardService,
      log,
      new ChangeNotices({} as StateNotifications),
    );
    updates.onModuleInit();
    const journal = log.open('acme', 'r1', false);
    journal.emit('run.progressed', { turns: 1, tool_calls: 0 });
    await journal.flush();
    journal.emit('run.settled', { run: {} });
    await journal.flush();
    updates.onModuleDestroy();
    journal.emit('run.settled', { run: {} });
    await journal.flush();
    expect(appends).toEqual([
      { types: ['run.progressed'], notices: [] },
      {
        types: ['run.settled'],
        notices: [
          {
            channel: 'svc_mcp_changed',
            payload: JSON.stringify(['acme', null, 'resource_updated', 'svc://runs/r1']),
          },
        ],
      },
      { types: ['run.settled'], notices: [] },
    ]);
  });
});
