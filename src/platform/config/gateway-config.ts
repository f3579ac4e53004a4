import type { KeysFileConfig } from './keys-file.js';
import type { TrustProxy } from './trust-proxy.js';
import type {
  LOG_LEVELS,
  MCP_MODES,
  PROVIDER_KINDS,
  RECORD_STORES,
  STATE_BACKENDS,
} from './environment.js';
import type { OTLP_COMPRESSIONS, OTLP_PROTOCOLS, TRACES_SAMPLERS } from './otel-environment.js';

/** The validated configuration, one typed namespace per concern (read via ConfigService). */
export interface GatewayConfig {
  server: ServerConfig;
  auth: AuthConfig;
  audit: AuditConfig;
  studio: StudioConfig;
  tenancy: { defaultTenant?: string };
  state: StateConfig;
  provider: ProviderConfig;
  tools: ToolsConfig;
  runLimits: RunLimitsConfig;
  runEvents: RunEventsConfig;
  budgets: BudgetsConfig;
  mcp: McpConfig;
  messaging: MessagingConfig;
  board: BoardConfig;
  telemetry: TelemetryConfig;
}

export interface TelemetryConfig {
  /**
   * False with OTEL_SDK_DISABLED=true: no spans at all (run `trace_id` is null) and nothing
   * exported over OTLP. `/metrics` stays: it is the gateway's own endpoint.
   */
  tracing: boolean;
  /**
   * The resource of spans and metrics: OTEL_RESOURCE_ATTRIBUTES, with `service.name` from
   * OTEL_SERVICE_NAME (else the attributes, else `svc-gateway`).
   */
  resource: Record<string, string>;
  traces: TracesConfig;
  metrics: MetricsExportConfig;
  /** `GET /metrics` answers without a key (SVC_METRICS_PUBLIC=true). */
  metricsPublic: boolean;
}

export type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];

/** One signal's OTLP/HTTP exporter, every standard variable already resolved. */
export interface OtlpExportConfig {
  /** The full URL posted to (`…/v1/traces`, `…/v1/metrics`). */
  url: string;
  protocol: OtlpProtocol;
  /** Sent with every export; values are secrets (collector tokens). Names lower-case. */
  headers: Record<string, string>;
  timeoutMs: number;
  compression: (typeof OTLP_COMPRESSIONS)[number];
}

export interface TracesConfig {
  /** The collector spans are batched to; undefined: the last spans are kept in memory. */
  otlp?: OtlpExportConfig;
  sampler: { name: (typeof TRACES_SAMPLERS)[number]; ratio: number };
  batch: {
    scheduledDelayMs: number;
    exportTimeoutMs: number;
    maxQueueSize: number;
    maxExportBatchSize: number;
  };
}

export interface MetricsExportConfig {
  /** `GET /metrics` is served (OTEL_METRICS_EXPORTER lists prometheus, the default). */
  prometheus: boolean;
  /** The collector metrics are pushed to periodically; undefined: none. */
  otlp?: OtlpExportConfig;
  intervalMs: number;
  timeoutMs: number;
}

export interface ServerConfig {
  host: string;
  port: number;
  /** Serve on a non-loopback host without any key (operator opted in with --insecure). */
  insecure: boolean;
  shutdownTimeoutMs: number;
  maxBodyBytes: number;
  /** How deeply a request's JSON may nest (SVC_MAX_JSON_DEPTH): 400 beyond, before any parsing. */
  maxJsonDepth: number;
  logLevel: (typeof LOG_LEVELS)[number];
  /** Express's `trust proxy`: who may name the client's address (SVC_TRUST_PROXY). */
  trustProxy: TrustProxy;
}

export interface AuthConfig {
  /** The root key (role admin, every tenant). Undefined with no keys file means auth is off. */
  apiKey?: string;
  keysFile?: KeysFileConfig;
  rateLimitPerMin: number;
  /** Failed authentications one client address may make per window; then 429 (0 = off). */
  failureLimit: number;
  failureWindowMs: number;
}

/**
 * `memory`: this process only (the embedded default of a single sqlite replica); `state`: the
 * state backend, shared by every replica and kept across restarts.
 */
export type RecordStore = (typeof RECORD_STORES)[number];

export interface AuditConfig {
  store: RecordStore;
  /** Memory: events kept per tenant, and for events of no tenant (one ring each). */
  eventsPerTenant: number;
  /** Memory: tenant rings kept; a new tenant replaces the least recently written one. */
  maxTenants: number;
  /** State: events older than this many days are deleted; 0 keeps them forever. */
  retentionDays: number;
}

export interface StudioConfig {
  store: RecordStore;
  /** State: loops and sessions not updated for this many days are deleted. */
  retentionDays: number;
}

export type StateBackend = (typeof STATE_BACKENDS)[number];

export interface StateConfig {
  backend: StateBackend;
  dsn?: string;
  sqlitePath: string;
  poolSize: number;
  /** PostgreSQL: a statement without an answer by then fails (the backend is unreachable). */
  queryTimeoutMs: number;
  /**
   * PostgreSQL: the state statements are prepared, once per connection (StatementNames); off
   * behind a pooler that cannot keep prepared statements across transactions.
   */
  preparedStatements: boolean;
  leaseTtlMs: number;
  /** Sweep for runs whose owner died and continue them (off for the one-shot `svc run`). */
  takeOverRuns: boolean;
}

/**
 * Where the Kanban board lives: a sqlite file of this replica, or a PostgreSQL database every
 * replica shares (by default the state backend's own, when that is PostgreSQL).
 */
export type BoardConfig =
  | { backend: 'sqlite'; sqlitePath: string }
  | {
      backend: 'postgres';
      dsn: string;
      /** PostgreSQL: a statement without an answer by then fails (SVC_STATE_QUERY_TIMEOUT_MS). */
      queryTimeoutMs: number;
    };

export interface ProviderConfig {
  /** Undefined selects the offline echo provider. */
  url?: string;
  kind: (typeof PROVIDER_KINDS)[number] | 'echo';
  model?: string;
  /** Credential sent upstream: SVC_PROVIDER_API_KEY, else SVC_API_KEY (the spec's rule). */
  apiKey?: string;
  timeoutMs: number;
  maxTurns: number;
}

export interface ToolsConfig {
  timeoutMs: number;
  /** Wall time one pass of argument validation may take once it outgrows its work budget. */
  validationTimeoutMs: number;
  /** Milliseconds of schema compilation one tenant may spend per minute on a replica; 0 = any. */
  compileMsPerMin: number;
  /**
   * SVC_TOOL_ALLOWED_HOSTS: destinations tenants' tools may reach (names, `*.suffix`, IPs, CIDRs,
   * `*`; see AllowList). Undefined: any public one, and private ones while bound to loopback.
   */
  allowedHosts?: string[];
  /** How long an upstream MCP server's tool list is served before it is fetched again. */
  upstreamListTtlMs: number;
}

/** What one run may do and keep: the bounds on a model's fan-out and on a session's size. */
export interface RunLimitsConfig {
  /** Tool calls one model answer may ask for; more fails the run (none of them runs). */
  maxToolCallsPerTurn: number;
  /** Tool calls one run may make in all its turns (and graph steps). */
  maxToolCallsPerRun: number;
  /** A session's stored conversation, as JSON bytes; the oldest exchanges make room. */
  sessionMaxBytes: number;
  /** What the model is fed (and the session keeps) of one tool result; longer ones are cut. */
  toolResultMaxBytes: number;
}

/** The run event log and the streams that read it. */
export interface RunEventsConfig {
  /** Events one run's log holds before its model deltas are no longer written. */
  maxPerRun: number;
  /** A run's log is deleted once its last event is this old. */
  retentionMs: number;
  /** An idle event stream sends a comment this often, so proxies keep it open. */
  heartbeatMs: number;
  /** Signs run webhooks (Standard Webhooks); unset, runs cannot ask for a webhook. */
  webhookSecret?: string;
}

/** Every tenant's token budget unless PUT /v1/budgets/{tenant} set its own; unset = no limit. */
export interface BudgetsConfig {
  /** Tokens (prompt + completion) a tenant may spend per UTC day. */
  dailyTokens?: number;
  /** Tokens a tenant may spend per UTC calendar month. */
  monthlyTokens?: number;
}

export type McpMode = (typeof MCP_MODES)[number];

export interface McpConfig {
  /** `stateful`: sessions (Mcp-Session-Id) on this replica; `stateless`: every POST stands alone. */
  mode: McpMode;
  /** Accepted `Host` values (lowercase, `name` or `name:port`); undefined: see McpOriginPolicy. */
  allowedHosts?: string[];
  /** Accepted `Origin` values (lowercase `scheme://host[:port]`); undefined: loopback only. */
  allowedOrigins?: string[];
  /** Live sessions kept per replica. */
  maxSessions: number;
  /** Sessions one tenant may hold; at the quota its own least recently used idle one goes. */
  maxSessionsPerTenant: number;
  /** Sessions one key may hold (across tenants); likewise. */
  maxSessionsPerKey: number;
  /** A session without a request for this long is closed. */
  sessionIdleMs: number;
  /** Open 2026-07-28 `subscriptions/listen` streams per replica. */
  maxSubscriptions: number;
}

export interface MessagingConfig {
  chataWebhook?: string;
  chatbWebhook?: string;
  /** Signing secret of the inbound webhook; unset, the webhook needs an API key instead. */
  secret?: string;
  /**
   * The tenant of each Slack workspace (team id, or enterprise id for an org-wide install), from
   * SVC_SLACK_TENANTS. Unset: every Slack event belongs to SVC_TENANT.
   */
  slackTenants?: ReadonlyMap<string, string>;
  /** How often each replica looks for outbox messages that are due. */
  outboxPollMs: number;
  /** Delivery attempts per message, the first included; then it is marked failed. */
  outboxMaxAttempts: number;
  /** First retry delay; doubled per attempt (with jitter) up to a cap. */
  outboxRetryBaseMs: number;
}

/** True when the gateway would accept requests without any credential. */
export function authDisabled(auth: AuthConfig): boolean {
  return auth.apiKey === undefined && auth.keysFile === undefined;
}
