import type { KeysFileConfig } from './keys-file.js';
import type { TrustProxy } from './trust-proxy.js';
import type { LOG_LEVELS, MCP_MODES, PROVIDER_KINDS, STATE_BACKENDS } from './environment.js';

/** The validated configuration, one typed namespace per concern (read via ConfigService). */
export interface GatewayConfig {
  server: ServerConfig;
  auth: AuthConfig;
  audit: AuditConfig;
  tenancy: { defaultTenant?: string };
  state: StateConfig;
  provider: ProviderConfig;
  tools: ToolsConfig;
  runLimits: RunLimitsConfig;
  runEvents: RunEventsConfig;
  mcp: McpConfig;
  messaging: MessagingConfig;
  board: { dbPath: string };
  telemetry: TelemetryConfig;
}

export interface TelemetryConfig {
  /** OTLP/HTTP collector base URL; spans go to `<endpoint>/v1/traces`. Unset: kept in memory. */
  otlpEndpoint?: string;
  /** False with OTEL_SDK_DISABLED=true: no spans at all (run `trace_id` is null). */
  tracing: boolean;
  /** `service.name` of the spans and metrics (OTEL_SERVICE_NAME). */
  serviceName: string;
  /** `GET /metrics` answers without a key (SVC_METRICS_PUBLIC=true). */
  metricsPublic: boolean;
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

export interface AuditConfig {
  /** Events kept per tenant, and for events of no tenant (one ring each). */
  eventsPerTenant: number;
  /** Tenant rings kept; a new tenant replaces the least recently written one. */
  maxTenants: number;
}

export type StateBackend = (typeof STATE_BACKENDS)[number];

export interface StateConfig {
  backend: StateBackend;
  dsn?: string;
  sqlitePath: string;
  poolSize: number;
  /** PostgreSQL: a statement without an answer by then fails (the backend is unreachable). */
  queryTimeoutMs: number;
  leaseTtlMs: number;
  /** Sweep for runs whose owner died and continue them (off for the one-shot `svc run`). */
  takeOverRuns: boolean;
}

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
