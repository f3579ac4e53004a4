import type { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { OutageLog } from '../logging/outage-log.js';
import { scrubSecrets } from '../logging/scrub-secrets.js';
import { migrationStatus } from './run-migrations.js';
import { StateUnavailableError } from './state-store.js';

const RETRY_MIN_MS = 500;
const RETRY_MAX_MS = 15_000;
const CHECK_TIMEOUT_MS = 2_000;
/** How long close waits for a connect attempt under way. */
const CLOSE_WAIT_MS = 5_000;

/** How a database answers /readyz. */
export interface DataSourceReadiness<B extends string = string> {
  ready: boolean;
  backend: B;
  migrations?: { applied: number; pending: string[] };
  reason?: string;
}

export interface MigratedDataSourceOptions<B extends string> {
  /** Named in log lines and messages: "state backend", "the board database". */
  name: string;
  backend: B;
  logger: Logger;
  /** Builds the DataSource; `onPoolError` hears an idle pooled connection that broke. */
  create(onPoolError: (error: unknown) => void): DataSource;
  /** Applies pending migrations; answers their names. */
  migrate(dataSource: DataSource): Promise<string[]>;
  /** The error callers see: StateUnavailableError for a database that cannot be reached. */
  classify(error: unknown): unknown;
}

/** Driver messages can quote the connection string; keep credentials out of probes and logs. */
export function messageOf(error: unknown): string {
  return scrubSecrets(error instanceof Error ? error.message : String(error)) || 'unknown error';
}

function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/**
 * A database the process depends on but must not crash without: it connects and migrates at
 * start and, when the database cannot be reached, keeps retrying in the background (doubling
 * the delay up to 15 s), so the process still serves /healthz and reports not_ready. Once
 * connected, the pg pool reconnects by itself after an outage. Every use goes through `use`,
 * where an unreachable database becomes StateUnavailableError (503 on every surface) and the
 * outage is logged once. The state backend and the PostgreSQL board are the two.
 */
export class MigratedDataSource<B extends string = string> {
  readonly dataSource: DataSource;
  private readonly outage: OutageLog;
  private migrated = false;
  private lastError = 'not connected yet';
  private retryTimer?: NodeJS.Timeout;
  private retryDelay = RETRY_MIN_MS;
  private closing = false;
  /** The attempt under way: close waits for it, so a pool it opens late is not left open. */
  private connecting: Promise<void> | null = null;

  constructor(private readonly options: MigratedDataSourceOptions<B>) {
    this.outage = new OutageLog(options.logger, options.name);
    this.dataSource = options.create((error) => this.outage.failed(options.classify(error)));
  }

  get isMigrated(): boolean {
    return this.migrated;
  }

  /** Tries once (before the app listens); on failure the app starts anyway and keeps retrying. */
  connect(): Promise<void> {
    if (this.closing) return Promise.resolve();
    this.connecting ??= this.attempt().finally(() => (this.connecting = null));
    return this.connecting;
  }

  private async attempt(): Promise<void> {
    const { logger, name, backend } = this.options;
    try {
      if (!this.dataSource.isInitialized) await this.dataSource.initialize();
      const applied = await this.options.migrate(this.dataSource);
      if (applied.length > 0) logger.log(`${name}: applied migrations ${applied.join(', ')}`);
      this.migrated = true;
      this.retryDelay = RETRY_MIN_MS;
    } catch (error) {
      this.lastError = messageOf(error);
      logger.warn(
        `${name} (${backend}) not ready: ${this.lastError}; retrying in ${this.retryDelay} ms`,
      );
      this.scheduleRetry();
    }
  }

  private scheduleRetry(): void {
    if (this.closing) return;
    this.retryTimer = setTimeout(() => void this.connect(), this.retryDelay);
    this.retryTimer.unref();
    this.retryDelay = Math.min(this.retryDelay * 2, RETRY_MAX_MS);
  }

  /**
   * Runs `work` on the connected, migrated DataSource. Throws StateUnavailableError before the
   * first migration and whenever the database cannot be reached; other errors pass unchanged.
   */
  use<T>(work: (source: DataSource) => Promise<T>): Promise<T> {
    const { name, backend } = this.options;
    if (!this.migrated) {
      return Promise.reject(
        new StateUnavailableError(`${name} (${backend}) is not ready: ${this.lastError}`),
      );
    }
    // Every state statement passes here: a plain `then` with handlers made once, rather than an
    // async function's promises and its await.
    let pending: Promise<T>;
    try {
      pending = work(this.dataSource);
    } catch (error) {
      // Thrown before a promise was made: rejected as classified, like any other failure.
      return Promise.resolve().then(() => this.failed(error));
    }
    return pending.then(this.succeeded, this.failed);
  }

  private readonly succeeded = <R>(result: R): R => {
    this.outage.succeeded();
    return result;
  };

  /** The error as callers see it; an unreachable database also counts towards the outage. */
  private readonly failed = (error: unknown): never => {
    const classified = this.options.classify(error);
    if (classified instanceof StateUnavailableError) this.outage.failed(classified);
    throw classified;
  };

  /** Live check for /readyz: the database answers now and no migration is pending. */
  async readiness(): Promise<DataSourceReadiness<B>> {
    const { name, backend } = this.options;
    if (!this.migrated) return { ready: false, backend, reason: this.lastError };
    try {
      const migrations = await withTimeout(
        (async () => {
          await this.dataSource.query('SELECT 1');
          return migrationStatus(this.dataSource);
        })(),
        CHECK_TIMEOUT_MS,
        `${name} ${backend}`,
      );
      const ready = migrations.pending.length === 0;
      return {
        ready,
        backend,
        migrations,
        ...(ready ? {} : { reason: `pending migrations: ${migrations.pending.join(', ')}` }),
      };
    } catch (error) {
      return { ready: false, backend, reason: messageOf(error) };
    }
  }

  /** Stops retrying; `beforeDestroy` runs while a migrated pool is still open. */
  async close(beforeDestroy?: () => Promise<void>): Promise<void> {
    this.closing = true;
    clearTimeout(this.retryTimer);
    if (this.connecting) {
      await withTimeout(this.connecting, CLOSE_WAIT_MS, `${this.options.name} connect`).catch(
        () => undefined,
      );
    }
    if (!this.dataSource.isInitialized) return;
    if (this.migrated && beforeDestroy) await beforeDestroy();
    await this.dataSource.destroy();
  }
}
