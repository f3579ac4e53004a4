import { Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { BoardService } from '../../board/board.service.js';
import { RunEvents } from '../../runs/lifecycle/run-events.js';
import type { RunRecord } from '../../runs/record/run-record.js';
import { cardUri, runUri } from '../features/built-in-resources.js';
import { ChangeNotices } from './change-notices.js';

/**
 * Tells the clients subscribed to a gateway document (`svc://board/cards/{id}`,
 * `svc://runs/{id}`) that it changed, on every replica: a card on each change (the board
 * says), a run when it starts here (or resumes after a decision) and when it settles
 * (completed, failed, denied, cancelled, paused) on the replica executing it. A run's turns
 * are not announced: one notice per run change of status, not per model answer.
 */
@Injectable()
export class DocumentUpdates implements OnModuleInit, OnModuleDestroy {
  private readonly stops: Array<() => void> = [];

  constructor(
    private readonly board: BoardService,
    private readonly runs: RunEvents,
    private readonly notices: ChangeNotices,
  ) {}

  onModuleInit(): void {
    const run = (record: Readonly<RunRecord>) =>
      this.updated(record.tenant_id, runUri(record.run_id));
    this.stops.push(
      this.board.onCardChanged(({ tenantId, cardId }) => this.updated(tenantId, cardUri(cardId))),
      this.runs.subscribe({ runStarted: run, runSettled: run }),
    );
  }

  onModuleDestroy(): void {
    for (const stop of this.stops) stop();
  }

  private updated(tenantId: string, uri: string): void {
    void this.notices.announce({ scope: { tenantId }, event: { kind: 'resource_updated', uri } });
  }
}
