import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { GatewayConfig, ProviderConfig } from '../../platform/config/gateway-config.js';
import type { ChatUsage } from '../../providers/chat.types.js';
import { addUsage, requestedModel } from '../../providers/usage.js';
import { utcDay } from '../../usage/usage-days.js';
import { UsageLedger } from '../../usage/usage-ledger.store.js';
import type { StoredRun } from '../record/run-record.js';

/** Where the model calls of one execution of a run report what they spent. */
export interface SpendMeter {
  /**
   * A call asking for `model` (undefined: the default model) answered, having used `usage`.
   * Resolves once the spend is in the ledger (or, while the backend is away, held to be written
   * when it is back), before the answer is acted on.
   */
  spent(model: string | undefined, usage: ChatUsage): Promise<void>;
  /**
   * `spent`, then `act`, the write that acts on the answer, asked for in the same moment when the
   * ledger can write at once: both statements then go in one group, one transaction on either
   * database, and the ledger has the call exactly when the answer is checkpointed. Otherwise
   * `act` waits until the spend is written. Resolves with what `act` resolves once both are
   * done; rejects with `act`'s error once the spend was tried.
   */
  spentWith<T>(model: string | undefined, usage: ChatUsage, act: () => Promise<T>): Promise<T>;
}

/**
 * What runs spend, for the tenant's usage and budgets. Every model call's tokens go into the
 * usage ledger as the call answers (written before the answer is checkpointed or used; the
 * calls of runs answered in the same moment share one statement), then into the run record's
 * `usage`, which the run's next write keeps. So the ledger never misses a call whose answer a
 * run went on with, and never counts a call twice: a takeover repeats only calls whose answers
 * were not checkpointed, which the provider served (and billed) twice. A run counts once, when
 * its first record is written: the count waits in the ledger's buffer and goes with the run's
 * first model call (or within the ledger's gathering window), so a crash in between loses it
 * (docs/decisions.md).
 */
@Injectable()
export class RunSpending {
  private readonly provider: ProviderConfig;

  constructor(
    private readonly ledger: UsageLedger,
    config: ConfigService<GatewayConfig, true>,
  ) {
    this.provider = config.get('provider', { infer: true });
  }

  /** A new run was recorded (its first write): one run of its tenant, agent and model today. */
  started(run: Pick<StoredRun, 'tenant_id' | 'agent'>, model?: string): void {
    this.ledger.add({
      tenantId: run.tenant_id,
      day: utcDay(new Date()),
      agent: run.agent,
      model: requestedModel(model, this.provider),
      runs: 1,
    });
  }

  /**
   * The meter of one execution of `run`: it adds each call to the ledger and to `run.usage`
   * (before `act`, so a checkpoint it writes holds the call).
   */
  meter(run: StoredRun): SpendMeter {
    const spentWith = async <T>(
      requested: string | undefined,
      usage: ChatUsage,
      act: () => Promise<T>,
    ): Promise<T> => {
      const model = requestedModel(requested, this.provider);
      const { sent, recorded } = this.ledger.recordNow({
        tenantId: run.tenant_id,
        day: utcDay(new Date()),
        agent: run.agent,
        model,
        promptTokens: usage.prompt_tokens ?? 0,
        completionTokens: usage.completion_tokens ?? 0,
        calls: 1,
      });
      run.usage = addUsage(run.usage, usage, model);
      if (!sent) await recorded;
      const acted = Promise.resolve().then(act);
      acted.catch(() => undefined); // answered below, once the spend was tried
      await recorded; // never rejects
      return acted;
    };
    return {
      spent: (requested, usage) => spentWith(requested, usage, () => Promise.resolve()),
      spentWith,
    };
  }
}
