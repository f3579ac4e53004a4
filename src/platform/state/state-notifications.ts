import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { EventEmitter } from 'node:events';
import type { Client as PgClient } from 'pg';
import type { GatewayConfig, StateConfig } from '../config/gateway-config.js';
import { scrubSecrets } from '../logging/scrub-secrets.js';
import { StateDatabase } from './state-database.service.js';
import { importInTurn } from '../lazy/lazy-module.js';

export type NotificationHandler = (payload: string) => void;

/**
 * A notification to send: on PostgreSQL a statement that writes what it announces can send it
 * itself (`SELECT pg_notify(...)` inside it), so it commits with the write and costs no round
 * trip of its own; see StateNotifications.sent for the other backend.
 */
export interface StateNotice {
  channel: string;
  payload: string;
}

const RECONNECT_MIN_MS = 250;
const RECONNECT_MAX_MS = 10_000;

/**
 * Wake-ups between replicas through the state backend: PostgreSQL LISTEN/NOTIFY on one
 * dedicated connection per process (opened on the first `listen`, reopened with backoff when
 * it breaks), and in-process delivery for sqlite, which serves one replica. A notification is
 * a hint, never the data: whoever listens reads what changed from the database, and after a
 * reconnection (when notifications may have been missed) every `onReconnect` handler catches up.
 */
@Injectable()
export class StateNotifications implements OnApplicationShutdown {
  private readonly logger = new Logger(StateNotifications.name);
  private readonly state: StateConfig;
  private readonly handlers = new Map<string, Set<NotificationHandler>>();
  private readonly reconnectHandlers = new Set<() => void>();
  private client: PgClient | null = null;
  private connecting: Promise<void> | null = null;
  private retryDelay = RECONNECT_MIN_MS;
  private retryTimer?: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly database: StateDatabase,
    config: ConfigService<GatewayConfig, true>,
  ) {
    this.state = config.get('state', { infer: true });
    if (!this.shared) {
      // Every app of this process on the same sqlite file hears the others (tests, `svc run`).
      const bus = localBus(this.state.sqlitePath);
      const hear = (channel: string, payload: string) => this.deliver(channel, payload);
      bus.on('notification', hear);
      this.unhearLocal = () => bus.off('notification', hear);
    }
  }

  private unhearLocal = () => {};

  /** Calls `handler` with every payload sent on `channel`; returns the unsubscribe function. */
  listen(channel: string, handler: NotificationHandler): () => void {
    let set = this.handlers.get(channel);
    if (!set) {
      set = new Set();
      this.handlers.set(channel, set);
      if (this.client) void this.client.query(`LISTEN ${quoteIdent(channel)}`).catch(() => null);
    }
    set.add(handler);
    this.ensureConnected();
    return () => set.delete(handler);
  }

  /** Called each time the listening connection is (re)established: notifications may be missed. */
  onReconnect(handler: () => void): () => void {
    this.reconnectHandlers.add(handler);
    return () => this.reconnectHandlers.delete(handler);
  }

  /** Delivers `payload` on `channel` to every replica (this one included). */
  async notify(channel: string, payload: string): Promise<void> {
    if (this.shared) {
      await this.database.query('SELECT pg_notify($1, $2)', [channel, payload]);
      return;
    }
    localBus(this.state.sqlitePath).emit('notification', channel, payload);
  }

  /**
   * `notices` were sent by a statement that wrote what they announce (PostgreSQL's pg_notify in
   * it): on sqlite, which has no such statement, they are delivered in this process now.
   */
  sent(notices: readonly StateNotice[]): void {
    if (this.shared) return;
    for (const { channel, payload } of notices) {
      localBus(this.state.sqlitePath).emit('notification', channel, payload);
    }
  }

  /** Whether notifications reach other replicas (PostgreSQL) or only this process (sqlite). */
  get shared(): boolean {
    return this.state.backend === 'postgres';
  }

  onApplicationShutdown(): Promise<void> {
    this.closed = true;
    this.unhearLocal();
    clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = null;
    return client ? client.end().catch(() => undefined) : Promise.resolve();
  }

  private deliver(channel: string, payload: string): void {
    for (const handler of this.handlers.get(channel) ?? []) {
      try {
        handler(payload);
      } catch (error) {
        this.logger.warn(`a notification handler on ${channel} failed: ${String(error)}`);
      }
    }
  }

  private ensureConnected(): void {
    if (!this.shared || this.closed || this.client || this.connecting) return;
    this.connecting = this.connect().finally(() => (this.connecting = null));
  }

  private async connect(): Promise<void> {
    // Imported here: only PostgreSQL has a LISTEN connection, and sqlite never loads the driver.
    const { default: pg } = await importInTurn(() => import('pg'));
    const client = new pg.Client({
      connectionString: this.state.dsn,
      application_name: 'svc-gateway-listen',
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      connectionTimeoutMillis: 5_000,
    });
    client.on('notification', (message) => this.deliver(message.channel, message.payload ?? ''));
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client, new Error('connection ended')));
    try {
      await client.connect();
      for (const channel of this.handlers.keys())
        await client.query(`LISTEN ${quoteIdent(channel)}`);
    } catch (error) {
      client.removeAllListeners('end');
      await client.end().catch(() => undefined);
      this.lost(null, error);
      return;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.retryDelay = RECONNECT_MIN_MS;
    this.client = client;
    // Whatever was sent before LISTEN took effect is unknown here: listeners catch up.
    for (const handler of this.reconnectHandlers) handler();
  }

  private lost(client: PgClient | null, error: unknown): void {
    if (client !== null && this.client !== client) return;
    this.client = null;
    if (this.closed) return;
    this.logger.warn(
      `the notification connection failed (${scrubSecrets(error instanceof Error ? error.message : String(error))}); reconnecting`,
    );
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.ensureConnected(), this.retryDelay);
    this.retryTimer.unref();
    this.retryDelay = Math.min(this.retryDelay * 2, RECONNECT_MAX_MS);
  }
}

const localBuses = new Map<string, EventEmitter>();

/** The in-process notification bus of one sqlite file. */
function localBus(path: string): EventEmitter {
  let bus = localBuses.get(path);
  if (!bus) {
    bus = new EventEmitter();
    bus.setMaxListeners(0);
    localBuses.set(path, bus);
  }
  return bus;
}

/** Channel names are ours (letters, digits, _), but quote them as identifiers anyway. */
function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
