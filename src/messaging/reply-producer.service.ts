import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { AgentRunner } from '../runs/agent-runner.service.js';
import type { GatewayConfig } from '../platform/config/gateway-config.js';
import { ProblemException } from '../platform/http/problem.js';
import type { RunStatus } from '../runs/record/run-record.js';
import { BudgetExhaustedProblem } from '../usage/budgets/budget-exhausted.problem.js';
import { LeaseLostError, StateUnavailableError } from '../platform/state/state-store.js';
import type { NewOutboxEntry, OutboxEntry } from './outbox-entry.js';
import { OutboxStore } from './outbox.store.js';
import { apology, replyText } from './reply-text.js';
import { SettledReplies } from './settled-replies.js';
import { DELIVERY_TIMEOUT_MS } from './webhook-poster.js';

export interface ProducedReply {
  /** The entry, now `pending` with its reply. */
  entry: OutboxEntry;
  /** Whether its delivery is claimed for this process (ReplyProducer.claimMs from now). */
  claimed: boolean;
  runStatus: RunStatus;
}

/**
 * The reply to a message that came when the tenant's token budget was spent: it says so and
 * when to ask again, rather than leaving the person without an answer.
 */
export function budgetReply(problem: BudgetExhaustedProblem): string {
  const resets = problem.state.resets_at.replace('T', ' ').replace(/:\d{2}\.\d{3}Z$/, ' UTC');
  return `Sorry, the ${problem.state.budget} token budget is used up, so I cannot answer now. Please ask again after ${resets}.`;
}

/** 409s that say the run is not over (a settled run that failed with a 409 is over). */
const NOT_OVER = new Set(['run-in-progress', 'session-busy', 'lease-lost']);

/**
 * A run that cannot finish now but will later: it runs elsewhere, its session is busy, its lease
 * was lost, or it stopped here because the backend is away or the process is stopping (503).
 * The entry stays `running` and the worker retries it. A run that failed (a stored 409
 * `session-conflict` included) is answered instead, or it would be retried forever.
 */
export function finishesLater(error: unknown): boolean {
  if (error instanceof StateUnavailableError || error instanceof LeaseLostError) return true;
  if (!(error instanceof ProblemException)) return false;
  const status = error.getStatus();
  return status === 503 || (status === 409 && NOT_OVER.has(error.slug ?? ''));
}

/**
 * Runs the agent for an accepted chat event, through AgentRunner only, and stores the reply in
 * the outbox (unless the run's settled record brought it: SettledReplies). The run id is the
 * entry id, so a second attempt (after a crash, or by another replica) returns the stored run
 * instead of running it again. A run that fails answers the chat with a short apology that
 * names the run, so the person is not left waiting; its cause is in the run record and the
 * audit trail.
 */
@Injectable()
export class ReplyProducer {
  private readonly logger = new Logger(ReplyProducer.name);
  private readonly maxTurns: number;
  /** How long an entry may stay `running` before the worker looks at it again. */
  readonly recoverAfterMs: number;
  /**
   * How long a delivery attempt holds its entry (OutboxStore.claim): the webhook's own timeout,
   * and a lease's time to live for storing the outcome; after it, another replica may attempt
   * the entry again (under the same Idempotency-Key).
   */
  readonly claimMs: number;

  constructor(
    private readonly runner: AgentRunner,
    private readonly outbox: OutboxStore,
    private readonly settled: SettledReplies,
    config: ConfigService<GatewayConfig, true>,
  ) {
    this.maxTurns = config.get('provider', { infer: true }).maxTurns;
    const leaseTtlMs = config.get('state', { infer: true }).leaseTtlMs;
    this.recoverAfterMs = 2 * leaseTtlMs;
    this.claimMs = DELIVERY_TIMEOUT_MS + leaseTtlMs;
  }

  /**
   * The reply, claimed for this process's delivery, or null when the entry is left for later (or
   * another process produced it). `accepted`: the entry was just accepted here, so no run has
   * its id yet and the runner starts it as new, without looking for a record first.
   */
  async produce(entry: NewOutboxEntry, accepted = false): Promise<ProducedReply | null> {
    this.settled.expect(entry.tenantId, entry.id, this.claimMs);
    let reply: string;
    let runStatus: RunStatus;
    try {
      const run = await this.runner.run({
        tenantId: entry.tenantId,
        agent: 'default',
        toolset: 'default',
        input: [{ role: 'user', content: entry.text }],
        runId: entry.id,
        ...(accepted ? { runIdIsNew: true as const } : {}),
        sessionId: entry.sessionId,
        maxTurns: this.maxTurns,
        multitask: 'enqueue',
        metadata: {
          channel: entry.channel,
          conversation_id: entry.conversationId,
          event_id: entry.eventId,
          user: entry.user,
        },
        actor: entry.actor,
        origin: 'messaging',
      });
      reply = replyText(run);
      runStatus = run.status;
    } catch (error) {
      if (finishesLater(error)) {
        // Not settled here: nothing to take, and the run is no longer expected.
        await this.settled.take(entry.tenantId, entry.id);
        this.logger.warn({ err: error }, `run ${entry.id} cannot finish now; retrying later`);
        await this.outbox
          .postpone(entry.tenantId, entry.id, this.recoverAfterMs)
          .catch((cause: unknown) =>
            this.logger.warn({ err: cause }, `could not postpone ${entry.id}`),
          );
        return null;
      }
      if (error instanceof BudgetExhaustedProblem) {
        this.logger.warn(`run ${entry.id} refused: ${error.message}`);
        reply = budgetReply(error);
      } else {
        this.logger.warn({ err: error }, `run ${entry.id} failed`);
        reply = apology(entry.id);
      }
      runStatus = 'failed';
    }
    // A run that settled here stored its reply with its settled record (SettledReplies).
    const settled = await this.settled.take(entry.tenantId, entry.id);
    if (settled) return { ...settled, runStatus };
    const stored = await this.outbox.setReply(entry.tenantId, entry.id, reply, {
      claimMs: this.claimMs,
    });
    return stored ? { entry: stored, claimed: true, runStatus } : null;
  }
}
