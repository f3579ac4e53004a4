import { Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { BoardService } from '../../board/board.service.js';
import { RunEventLog } from '../../runs/events/run-event-log.js';
import type { RunEventType } from '../../runs/events/run-event.js';
import { cardUri, runUri } from '../features/built-in-resources.js';
import { ChangeNotices } from './change-notices.js';

/** The run events that say a run's record changed status (it started, resumed or settled). */
const STATUS_EVENTS: ReadonlySet<RunEventType> = new Set([
  'run.started',
  'run.taken_over',
  'run.resumed',
  'run.paused',
  'run.settled',
]);

/**
 * Tells the clients subscribed to a gateway document (`svc://board/cards/{id}`,
 * `svc://runs/{id}`) that it changed, on every replica: a card on each change (the board
 * says), a run when it starts (or resumes after a takeover or a decision) and when it settles
 * (completed, failed, denied, cancelled, paused). A run's notice goes out with the run event that
 * says so, in the statement that writes it (RunEventLog.announceWith): it costs no statement of
 * its own, and reaches clients once the event is in the log (a run's start within the log's
 * gathering of events, its end before its caller has the answer). A run's turns are not
 * announced: one notice per run change of status, not per model answer.
 */
@Injectable()
export class DocumentUpdates implements OnModuleInit, OnModuleDestroy {
  private readonly stops: Array<() => void> = [];

  constructor(
    private readonly board: BoardService,
    private readonly runs: RunEventLog,
    private readonly notices: ChangeNotices,
  ) {}

  onModuleInit(): void {
    this.stops.push(
      this.board.onCardChanged(({ tenantId, cardId }) => this.updated(tenantId, cardUri(cardId))),
      this.runs.announceWith((tenantId, runId, events) =>
        events.some((event) => STATUS_EVENTS.has(event.type))
          ? this.notices.noticeOf({
              scope: { tenantId },
              event: { kind: 'resource_updated', uri: runUri(runId) },
            })
          : null,
      ),
    );
  }

  onModuleDestroy(): void {
    for (const stop of this.stops) stop();
  }

  private updated(tenantId: string, uri: string): void {
    void this.notices.announce({ scope: { tenantId }, event: { kind: 'resource_updated', uri } });
  }
}
