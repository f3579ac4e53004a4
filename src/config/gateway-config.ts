import type { KeysFileConfig } from './keys-file.js';
import type { LOG_LEVELS, MCP_MODES, PROVIDER_KINDS, STATE_BACKENDS } from './environment.js';

/** The validated configuration, one typed namespace per concern (read via ConfigService). */
export interface GatewayConfig {
  server: ServerConfig;
  auth: AuthConfig;
  tenancy: { defaultTenant?: string };
  state: StateConfig;
  provider: ProviderConfig;
  tools: ToolsConfig;
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
  logLevel: (typeof LOG_LEVELS)[number];
}

export interface AuthConfig {
  /** The root key (role admin, every tenant). Undefined with no keys file means auth is off. */
  apiKey?: string;
  keysFile?: KeysFileConfig;
  rateLimitPerMin: number;
}

export type StateBackend = (typeof STATE_BACKENDS)[number];

export interface StateConfig {
  backend: StateBackend;
  dsn?: string;
  sqlitePath: string;
  poolSize: number;
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
  /** Hosts HTTP tools may point at (`name`, `*.suffix`, `*`); undefined: any but link-local. */
  allowedHosts?: string[];
}

export type McpMode = (typeof MCP_MODES)[number];

export interface McpConfig {
  /** `stateful`: sessions (Mcp-Session-Id) on this replica; `stateless`: every POST stands alone. */
  mode: McpMode;
  /** Accepted `Host` values (lowercase, `name` or `name:port`); undefined: see McpOriginPolicy. */
  allowedHosts?: string[];
  /** Accepted `Origin` values (lowercase `scheme://host[:port]`); undefined: loopback only. */
  allowedOrigins?: string[];
  /** Live sessions kept per replica; the least recently used idle one makes room. */
  maxSessions: number;
  /** A session without a request for this long is closed. */
  sessionIdleMs: number;
}

export interface MessagingConfig {
  chataWebhook?: string;
  chatbWebhook?: string;
  /** Signing secret of the inbound webhook; unset, the webhook needs an API key instead. */
  secret?: string;
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
