import {
  type BeforeApplicationShutdown,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { GatewayConfig } from '../../platform/config/gateway-config.js';
import { deliveryDelayMs } from '../../platform/http/delivery-backoff.js';
import { ProblemException, ValidationProblem } from '../../platform/http/problem.js';
import { ServingSignal } from '../../platform/http/serving-signal.js';
import { TenantEgress } from '../../platform/http/tenant-egress.js';
import { OutageLog } from '../../platform/logging/outage-log.js';
import { DeploymentMark } from '../../platform/state/deployment-mark.js';
import { LeaseKeeper } from '../../platform/state/lease-keeper.service.js';
import type { EntryWrite, WriteInFlight } from '../../platform/state/state-store.js';
import {
  type RunMarks,
  type RunRecord,
  TERMINAL_STATUSES,
  mayHaveWebhook,
} from '../record/run-record.js';
import { runView } from '../record/run-record.mapper.js';
import { RunRecordStore } from '../record/run-record.store.js';
import {
  type RunWebhook,
  RunWebhookStore,
  type WebhookFormat,
  type WebhookTarget,
} from './run-webhook.store.js';
import { sendSigned } from './webhook-sender.js';

/** What a webhook of some format POSTs. */
export interface FormattedWebhook {
  payload: unknown;
  headers?: Record<string, string>;
}

/**
 * Writes a settled run as a webhook of one format (see RunWebhooks.useFormat); asynchronously
 * when it needs a library imported on first use (A2A's codecs).
 */
export type WebhookFormatter = (
  run: RunRecord,
  hook: RunWebhook,
) => FormattedWebhook | Promise<FormattedWebhook>;

/** The longest webhook address taken (as the REST field's bound). */
export const MAX_WEBHOOK_URL = 2048;

/**
 * What is wrong with a webhook address before the egress policy looks at where it points: it
 * must be an absolute http(s) URL of at most MAX_WEBHOOK_URL characters, without credentials.
 */
export function webhookUrlRefusal(url: string): string | undefined {
  if (url.length > MAX_WEBHOOK_URL) return `a URL of at most ${MAX_WEBHOOK_URL} characters`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'not an absolute URL';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return `only http and https URLs are called, not ${parsed.protocol.slice(0, 32)}`;
  }
  if (parsed.username || parsed.password) return 'credentials belong in no URL';
  return undefined;
}

/** Rows one replica delivers at once. */
const MAX_IN_FLIGHT = 16;
/** Runs without a webhook mark whose webhook was set here while they ran, remembered at most. */
const MAX_CONFIGURED_HERE = 10_000;
/**
 * A waiting row is looked at this often: the settled record marks it due in its transaction;
 * this covers what that cannot (a webhook set on another replica for a run without a mark, a run
 * settled by an older version, a mark sent after its record by a process that then died).
 */
export const WAITING_CHECK_MS = 60_000;

/**
 * Run webhooks (`"webhook": URL` on POST /v1/agent/run): the settled run, signed (Standard
 * Webhooks, SVC_RUN_WEBHOOK_SECRET), POSTed once to the URL through a durable outbox with
 * retries. The row is written when the run is claimed, before it executes, and is due when the
 * run settles (completed, failed, denied, cancelled; a pause is not an end). Only a run that
 * may have one is looked up when it settles: one started with a webhook or as an A2A task (its
 * record carries the mark to whichever replica settles it), or one whose webhook was set on this
 * replica while it ran; any other run costs the outbox nothing (a webhook set on another replica
 * for a run without a mark is found by the waiting check, WAITING_CHECK_MS). Every serving
 * replica polls for due rows and claims each with a lease (`webhook:<run>`), so one delivers it;
 * the URL obeys the tenant egress policy (the one HTTP tools obey) when it is given and on every
 * connection.
 */
@Injectable()
export class RunWebhooks implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(RunWebhooks.name);
  private readonly outage = new OutageLog(this.logger, 'run webhook poll');
  private readonly secret?: string;
  private readonly pollMs: number;
  private readonly maxAttempts: number;
  private readonly retryBaseMs: number;
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly formats = new Map<WebhookFormat, WebhookFormatter>();
  /** Runs whose webhook was set here while they ran (`configure`), oldest first. */
  private readonly configuredHere = new Set<string>();
  private timer?: NodeJS.Timeout;
  private stopped = false;
  /** Deliveries start once this process serves (a one-shot `svc run` leaves them to a server). */
  private started = false;

  constructor(
    private readonly store: RunWebhookStore,
    private readonly records: RunRecordStore,
    private readonly leases: LeaseKeeper,
    private readonly egress: TenantEgress,
    private readonly serving: ServingSignal,
    private readonly mark: DeploymentMark,
    config: ConfigService<GatewayConfig, true>,
  ) {
    this.secret = config.get('runEvents', { infer: true }).webhookSecret;
    const messaging = config.get('messaging', { infer: true });
    this.pollMs = messaging.outboxPollMs;
    this.maxAttempts = messaging.outboxMaxAttempts;
    this.retryBaseMs = messaging.outboxRetryBaseMs;
  }

  /** Refuses a webhook this gateway cannot sign or may not call (before the run starts). */
  check(url: string, field = 'webhook'): void {
    if (!this.secret) {
      throw new ProblemException(
        422,
        'this gateway has no SVC_RUN_WEBHOOK_SECRET to sign webhooks with; run without `webhook`',
        'webhooks-unavailable',
      );
    }
    const why = webhookUrlRefusal(url) ?? this.egress.policy.checkUrl(url)?.reason;
    if (why !== undefined) {
      const message = `webhook address refused: ${why}`;
      throw new ValidationProblem([{ path: field, message }], message);
    }
  }

  /** The run will deliver its settled state to `url` (a repeated run id keeps its first). */
  register(tenantId: string, runId: string, target: string | WebhookTarget): Promise<void> {
    const resolved =
      typeof target === 'string' ? { url: target, format: 'run' as const, token: null } : target;
    return this.store.register(tenantId, runId, resolved, WAITING_CHECK_MS);
  }

  /**
   * Sets the webhook of a run that has not settled (A2A's push configuration of a task); false
   * when the run's webhook was already delivered or failed.
   */
  async configure(tenantId: string, runId: string, target: WebhookTarget): Promise<boolean> {
    const key = `${tenantId}\u0000${runId}`;
    this.configuredHere.delete(key);
    if (this.configuredHere.size >= MAX_CONFIGURED_HERE) {
      const oldest = this.configuredHere.values().next();
      if (!oldest.done) this.configuredHere.delete(oldest.value);
    }
    this.configuredHere.add(key);
    return this.store.configure(tenantId, runId, target, WAITING_CHECK_MS);
  }

  /** The run's webhook, as registered. */
  find(tenantId: string, runId: string): Promise<RunWebhook | null> {
    return this.store.get(tenantId, runId);
  }

  /** Drops a webhook not yet delivered. */
  remove(tenantId: string, runId: string): Promise<boolean> {
    return this.store.remove(tenantId, runId);
  }

  /**
   * How another wire's webhooks are written: `build` makes the payload from the settled run and
   * the row (its token), and may add headers. The gateway's own format (`run`) is built in.
   */
  useFormat(format: WebhookFormat, build: WebhookFormatter): void {
    this.formats.set(format, build);
  }

  /**
   * The run's settled record was just asked for (`onlyIf`): its webhook, if it may have one
   * (`marks`, or one set here while it ran), is marked due in that record's transaction, and
   * delivered once it is. Never throws.
   */
  settling(run: RunRecord, marks: RunMarks, onlyIf: WriteInFlight): void {
    if (!TERMINAL_STATUSES.has(run.status)) return;
    const key = `${run.tenant_id}\u0000${run.run_id}`;
    const configured = this.configuredHere.delete(key);
    if (configured || mayHaveWebhook(marks)) this.due(run, onlyIf.write);
  }

  /**
   * The run has settled (or, with `onlyIf`, settles with that write) and has a webhook, or may
   * have: it is delivered now. Never throws.
   */
  due(run: RunRecord, onlyIf?: EntryWrite): void {
    if (!TERMINAL_STATUSES.has(run.status)) return;
    this.store
      .markDue(run.tenant_id, run.run_id, onlyIf)
      .then((marked) => (marked ? this.poll() : undefined))
      .catch((error: unknown) =>
        this.logger.warn(`marking the webhook of run ${run.run_id} due failed: ${String(error)}`),
      );
  }

  onApplicationBootstrap(): void {
    this.serving.whenServing(() => {
      this.started = true;
      this.schedule();
    });
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await Promise.allSettled([...this.inFlight.values()]);
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.poll().finally(() => this.schedule());
    }, this.pollMs);
    this.timer.unref();
  }

  private async poll(): Promise<void> {
    if (this.stopped || !this.started) return;
    let due: RunWebhook[];
    try {
      due = await this.store.due(MAX_IN_FLIGHT);
      this.outage.succeeded();
    } catch (error) {
      this.outage.failed(error);
      return;
    }
    for (const hook of due) {
      const key = `${hook.tenantId}\u0000${hook.runId}`;
      if (this.inFlight.size >= MAX_IN_FLIGHT || this.inFlight.has(key)) continue;
      const work = this.claimAndDeliver(hook).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, work);
    }
  }

  /** The payload (and headers) of the hook's format; the gateway's own when none is known. */
  private async format(hook: RunWebhook, run: RunRecord): Promise<FormattedWebhook> {
    const build = hook.format === 'run' ? undefined : this.formats.get(hook.format);
    return build ? build(run, hook) : { payload: { type: 'run.settled', run } };
  }

  private async claimAndDeliver(hook: RunWebhook): Promise<void> {
    try {
      const lease = await this.leases.acquire(hook.tenantId, `webhook:${hook.runId}`);
      if (!lease) return; // another replica has it
      try {
        await this.deliver(hook);
      } finally {
        await lease.release().catch(() => undefined);
      }
    } catch (error) {
      this.logger.warn(`delivering the webhook of run ${hook.runId} failed: ${String(error)}`);
    }
  }

  private async deliver(found: RunWebhook): Promise<void> {
    const run = await this.records.get(found.tenantId, found.runId);
    if (!run || !TERMINAL_STATUSES.has(run.status)) {
      await this.store.postpone(found.tenantId, found.runId, WAITING_CHECK_MS);
      return;
    }
    if (found.status === 'waiting') await this.store.markDue(found.tenantId, found.runId);
    // Read under the lease: another replica may have delivered it since the poll.
    const hook = await this.store.get(found.tenantId, found.runId);
    if (!hook || hook.status !== 'pending' || !this.secret) return;
    const formatted = await this.format(hook, runView(run));
    const outcome = await sendSigned({
      url: hook.url,
      id: `${hook.tenantId}/${hook.runId}`,
      secret: this.secret,
      payload: formatted.payload,
      headers: { ...(await this.mark.headers()), ...formatted.headers },
      dispatcher: () => this.egress.dispatcher(),
    });
    const attempt = hook.attempts + 1;
    if (outcome.ok) {
      await this.store.recordAttempt(hook, { status: 'delivered' });
      return;
    }
    const last = !outcome.retryable || attempt >= this.maxAttempts;
    await this.store.recordAttempt(hook, {
      status: last ? 'failed' : 'pending',
      retryInMs: last ? 0 : deliveryDelayMs(attempt, this.retryBaseMs, outcome.retryAfterMs),
      error: outcome.error,
    });
    if (last) this.logger.warn(`the webhook of run ${hook.runId} failed: ${outcome.error}`);
  }
}
