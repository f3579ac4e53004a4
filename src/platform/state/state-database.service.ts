import { Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { DataSource, QueryResult } from 'typeorm';
import type { GatewayConfig, StateBackend } from '../config/gateway-config.js';
import { OutageLog } from '../logging/outage-log.js';
import { scrubSecrets } from '../logging/scrub-secrets.js';
import { migrationStatus, runStateMigrations } from './run-migrations.js';
import { createStateDataSource } from './state-data-source.js';
import { StateUnavailableError } from './state-store.js';
import { classifyStateError } from './state-unavailable.js';

const RETRY_MIN_MS = 500;
const RETRY_MAX_MS = 15_000;
const CHECK_TIMEOUT_MS = 2_000;

export interface BackendReadiness {
  ready: boolean;
  backend: StateBackend;
  migrations?: { applied: number; pending: string[] };
  reason?: string;
}

/** Driver messages can quote the connection string; keep credentials out of probes and logs. */
function messageOf(error: unknown): string {
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
 * Owns the state DataSource: connects and migrates at start, and keeps retrying in the background
 * when the backend is down, so the process still serves /healthz and reports not_ready instead of
 * crash-looping. Once connected, the pg pool reconnects by itself after an outage. Every statement
 * goes through `query` or `use`, where a backend that cannot be reached becomes
 * StateUnavailableError (503 on every surface) and the outage is logged once.
 */
@Injectable()
export class StateDatabase implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(StateDatabase.name);
  readonly backend: StateBackend;
  private readonly dataSource: DataSource;
  private migrated = false;
  private lastError = 'not connected yet';
  private retryTimer?: NodeJS.Timeout;
  private retryDelay = RETRY_MIN_MS;
  private closing = false;
  private readonly closeHooks: Array<() => Promise<unknown>> = [];
  private readonly outage: OutageLog;

  constructor(config: ConfigService<GatewayConfig, true>) {
    const state = config.get('state', { infer: true });
    this.backend = state.backend;
    this.outage = new OutageLog(this.logger, 'state backend');
    // An idle pooled connection that breaks is the first sign of an outage.
    this.dataSource = createStateDataSource(state, (error) =>
      this.outage.failed(classifyStateError(error, this.backend)),
    );
  }

  /** Tries once before the app listens; on failure the app starts anyway and keeps retrying. */
  async onModuleInit(): Promise<void> {
    await this.connectAndMigrate();
  }

  private async connectAndMigrate(): Promise<void> {
    try {
      if (!this.dataSource.isInitialized) await this.dataSource.initialize();
      const applied = await runStateMigrations(this.dataSource);
      if (applied.length > 0) this.logger.log(`applied state migrations: ${applied.join(', ')}`);
      this.migrated = true;
      this.retryDelay = RETRY_MIN_MS;
    } catch (error) {
      this.lastError = messageOf(error);
      this.logger.warn(
        `state backend (${this.backend}) not ready: ${this.lastError}; retrying in ${this.retryDelay} ms`,
      );
      this.scheduleRetry();
    }
  }

  private scheduleRetry(): void {
    if (this.closing) return;
    this.retryTimer = setTimeout(() => void this.connectAndMigrate(), this.retryDelay);
    this.retryTimer.unref();
    this.retryDelay = Math.min(this.retryDelay * 2, RETRY_MAX_MS);
  }

  /** Runs one statement; rows and affected count come in the same shape on both drivers. */
  query(sql: string, params: unknown[] = []): Promise<QueryResult> {
    return this.use(async (source) => {
      const runner = source.createQueryRunner();
      try {
        return await runner.query(sql, params, true);
      } finally {
        await runner.release();
      }
    });
  }

  /**
   * Runs `work` on the connected, migrated DataSource. Throws StateUnavailableError before the
   * first migration and whenever the backend cannot be reached; other errors pass unchanged.
   */
  async use<T>(work: (source: DataSource) => Promise<T>): Promise<T> {
    if (!this.migrated)
      throw new StateUnavailableError(
        `state backend ${this.backend} is not ready: ${this.lastError}`,
      );
    try {
      const result = await work(this.dataSource);
      this.outage.succeeded();
      return result;
    } catch (error) {
      const classified = classifyStateError(error, this.backend);
      if (classified instanceof StateUnavailableError) this.outage.failed(classified);
      throw classified;
    }
  }

  /** Live check for /readyz: the backend answers now and no migration is pending. */
  async readiness(): Promise<BackendReadiness> {
    if (!this.migrated) return { ready: false, backend: this.backend, reason: this.lastError };
    try {
      const migrations = await withTimeout(
        (async () => {
          await this.dataSource.query('SELECT 1');
          return migrationStatus(this.dataSource);
        })(),
        CHECK_TIMEOUT_MS,
        `state backend ${this.backend}`,
      );
      const ready = migrations.pending.length === 0;
      return {
        ready,
        backend: this.backend,
        migrations,
        ...(ready ? {} : { reason: `pending migrations: ${migrations.pending.join(', ')}` }),
      };
    } catch (error) {
      return { ready: false, backend: this.backend, reason: messageOf(error) };
    }
  }

  /** Work that needs the connection one last time at shutdown (releasing leases). */
  beforeClose(hook: () => Promise<unknown>): void {
    this.closeHooks.push(hook);
  }

  /**
   * Nest runs this after the HTTP server has drained, so in-flight requests keep their connections
   * until they finish; then the close hooks run, then the pool closes.
   */
  async onApplicationShutdown(): Promise<void> {
    this.closing = true;
    clearTimeout(this.retryTimer);
    if (!this.dataSource.isInitialized) return;
    if (this.migrated) {
      for (const hook of this.closeHooks) {
        await hook().catch((error: unknown) =>
          this.logger.warn(`shutdown step failed: ${messageOf(error)}`),
        );
      }
    }
    await this.dataSource.destroy();
  }
}
