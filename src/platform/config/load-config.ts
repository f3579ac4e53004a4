import { plainToInstance } from 'class-transformer';
import { ValidationError, validateSync } from 'class-validator';
import { ConfigError } from './config-error.js';
import { Environment, SECRET_VARIABLES } from './environment.js';
import type {
  BoardConfig,
  GatewayConfig,
  McpConfig,
  ProviderConfig,
  RecordStore,
  RunLimitsConfig,
} from './gateway-config.js';
import { loadKeysFile } from './keys-file.js';
import { telemetryConfig } from './telemetry-config.js';
import { parseTrustProxy } from './trust-proxy.js';
import { isPostgresUrl } from './url.validators.js';
import { MAX_TENANT_ID } from '../state/state-key.limits.js';
import { DEFAULT_MAX_JSON_DEPTH } from '../http/json-depth.js';

export type EnvSource = Record<string, string | undefined>;

/**
 * How a variable is named in messages: `--port` when the value came from a CLI flag, else the
 * variable itself.
 */
export type SourceLabels = Partial<Record<keyof Environment, string>>;

/**
 * A refused value as an error line may show it: without `user:password@` (everything before the
 * last `@`, since a value that failed validation may not parse as a URL) and without a query
 * (`?api_key=…`). The line goes to stderr and CI logs.
 */
function shownValue(value: string): string {
  let shown = value;
  const at = shown.lastIndexOf('@');
  if (at !== -1) {
    const scheme = shown.indexOf('://');
    const start = scheme !== -1 && scheme < at ? scheme + 3 : 0;
    shown = `${shown.slice(0, start)}***${shown.slice(at)}`;
  }
  const query = shown.search(/[?#]/);
  return query === -1 ? shown : `${shown.slice(0, query + 1)}***`;
}

function describe(error: ValidationError, labels: SourceLabels): string {
  const problem = Object.values(error.constraints ?? {})[0] ?? 'is invalid';
  const shown =
    SECRET_VARIABLES.has(error.property) || error.value === undefined
      ? ''
      : ` (got ${JSON.stringify(shownValue(String(error.value)))})`;
  const name = labels[error.property as keyof Environment] ?? error.property;
  return `${name} ${problem}${shown}`;
}

/** Validates the SVC_ environment. Throws ConfigError with every problem on one line. */
export function validateEnvironment(source: EnvSource, labels: SourceLabels = {}): Environment {
  const present: Record<string, string> = {};
  for (const [name, value] of Object.entries(source)) {
    if (
      (name.startsWith('SVC_') || name.startsWith('OTEL_')) &&
      value !== undefined &&
      value !== ''
    ) {
      present[name] = value;
    }
  }
  // Keep the raw strings for messages: class-transformer turns "abc" into NaN.
  const env = plainToInstance(Environment, present);
  const errors = validateSync(env, { forbidUnknownValues: false });
  if (errors.length > 0) {
    for (const error of errors) error.value = present[error.property];
    throw new ConfigError(errors.map((error) => describe(error, labels)).join('; '));
  }
  return env;
}

/**
 * OpenAI-compatible when the URL says so; otherwise SVC_PROVIDER_KIND, default openai
 * (CONTRACT section 4).
 */
function providerKind(env: Environment): ProviderConfig['kind'] {
  if (!env.SVC_PROVIDER_URL) return 'echo';
  const path = new URL(env.SVC_PROVIDER_URL).pathname.replace(/\/+$/, '');
  if (path.endsWith('/chat/completions') || path.endsWith('/v1')) return 'openai';
  return env.SVC_PROVIDER_KIND ?? 'openai';
}

/** `a, B ,c` → ['a', 'b', 'c']; undefined stays undefined. */
function commaList(value: string | undefined): string[] | undefined {
  return value?.split(',').map((item) => item.trim().toLowerCase());
}

/** The run limits; a tool result must fit a session many times over, so it is a fraction. */
function runLimits(env: Environment): RunLimitsConfig {
  const limits: RunLimitsConfig = {
    maxToolCallsPerTurn: env.SVC_MAX_TOOL_CALLS_PER_TURN ?? 32,
    maxToolCallsPerRun: env.SVC_MAX_TOOL_CALLS_PER_RUN ?? 256,
    sessionMaxBytes: env.SVC_SESSION_MAX_BYTES ?? 1024 * 1024,
    toolResultMaxBytes: env.SVC_TOOL_RESULT_MAX_BYTES ?? 32 * 1024,
  };
  if (limits.toolResultMaxBytes * 4 > limits.sessionMaxBytes) {
    throw new ConfigError(
      `SVC_TOOL_RESULT_MAX_BYTES must be at most a quarter of SVC_SESSION_MAX_BYTES (${limits.sessionMaxBytes}), so that a session holds several results (got ${limits.toolResultMaxBytes})`,
    );
  }
  return limits;
}

/** `T0123=acme, E0456=beta` (already well-formed) → a map; a team named twice is an error. */
function slackTenants(value: string | undefined): ReadonlyMap<string, string> | undefined {
  if (value === undefined) return undefined;
  const map = new Map<string, string>();
  for (const pair of value.split(',')) {
    const [team, tenant] = pair.split('=').map((part) => part.trim());
    if (map.has(team)) throw new ConfigError(`SVC_SLACK_TENANTS names ${team} more than once`);
    if (tenant.length > MAX_TENANT_ID) {
      throw new ConfigError(
        `SVC_SLACK_TENANTS: the tenant of ${team} is longer than ${MAX_TENANT_ID} characters`,
      );
    }
    map.set(team, tenant);
  }
  return map;
}
/**
 * MCP session bounds. By default a tenant, and a key, may hold a tenth of the replica's
 * sessions, but at least 10 (or all of them on a replica allowed fewer): a small limit is not
 * cut into slivers, and no one tenant can fill a large one.
 */
function sessionQuotas(env: Environment): Pick<McpConfig, SessionLimit> {
  const maxSessions = env.SVC_MCP_MAX_SESSIONS ?? 1000;
  const share = Math.max(Math.min(maxSessions, 10), Math.floor(maxSessions / 10));
  const perTenant = Math.min(maxSessions, env.SVC_MCP_SESSIONS_PER_TENANT ?? share);
  return {
    maxSessions,
    maxSessionsPerTenant: perTenant,
    maxSessionsPerKey: Math.min(maxSessions, env.SVC_MCP_SESSIONS_PER_KEY ?? perTenant),
  };
}

type SessionLimit = 'maxSessions' | 'maxSessionsPerTenant' | 'maxSessionsPerKey';

/**
 * SVC_BOARD_DB as given (a PostgreSQL URL or a file path); unset, the board follows the state
 * backend: on PostgreSQL its tables go into the state database (so every replica shares the
 * board), on sqlite into a file of its own.
 */
function boardConfig(env: Environment, state: GatewayConfig['state']): BoardConfig {
  const where =
    env.SVC_BOARD_DB ??
    (state.backend === 'postgres' && state.dsn ? state.dsn : './data/board.sqlite');
  return isPostgresUrl(where)
    ? { backend: 'postgres', dsn: where, queryTimeoutMs: state.queryTimeoutMs }
    : { backend: 'sqlite', sqlitePath: where };
}

/**
 * Where the audit trail and the studio keep records unless told (CONTRACT 10): in memory for a
 * single sqlite replica, in the shared backend when replicas share PostgreSQL.
 */
function defaultRecordStore(env: Environment): RecordStore {
  return env.SVC_STATE_BACKEND === 'postgres' ? 'state' : 'memory';
}

/** Builds the typed configuration from the environment. Throws ConfigError. */
export function loadConfig(
  source: EnvSource = process.env,
  labels: SourceLabels = {},
): GatewayConfig {
  const env = validateEnvironment(source, labels);
  const state: GatewayConfig['state'] = {
    backend: env.SVC_STATE_BACKEND ?? 'sqlite',
    dsn: env.SVC_STATE_DSN,
    sqlitePath: env.SVC_STATE_SQLITE ?? './data/state.sqlite',
    poolSize: env.SVC_STATE_POOL_SIZE ?? 10,
    queryTimeoutMs: env.SVC_STATE_QUERY_TIMEOUT_MS ?? 30_000,
    preparedStatements: env.SVC_STATE_PREPARED_STATEMENTS ?? true,
    leaseTtlMs: env.SVC_LEASE_TTL_MS ?? 30_000,
    takeOverRuns: true,
  };
  return {
    server: {
      host: env.SVC_HOST ?? '127.0.0.1',
      port: env.SVC_PORT ?? 8080,
      insecure: env.SVC_INSECURE ?? false,
      shutdownTimeoutMs: env.SVC_SHUTDOWN_TIMEOUT_MS ?? 25_000,
      maxBodyBytes: env.SVC_MAX_BODY_BYTES ?? 1024 * 1024,
      maxJsonDepth: env.SVC_MAX_JSON_DEPTH ?? DEFAULT_MAX_JSON_DEPTH,
      logLevel: env.SVC_LOG_LEVEL ?? 'info',
      trustProxy: env.SVC_TRUST_PROXY ? (parseTrustProxy(env.SVC_TRUST_PROXY) ?? false) : false,
    },
    auth: {
      apiKey: env.SVC_API_KEY,
      keysFile: env.SVC_KEYS_FILE
        ? loadKeysFile(env.SVC_KEYS_FILE, { rootKey: env.SVC_API_KEY })
        : undefined,
      rateLimitPerMin: env.SVC_RATE_LIMIT_PER_MIN ?? 1200,
      failureLimit: env.SVC_AUTH_FAILURE_LIMIT ?? 100,
      failureWindowMs: env.SVC_AUTH_FAILURE_WINDOW_MS ?? 60_000,
    },
    audit: {
      store: env.SVC_AUDIT_STORE ?? defaultRecordStore(env),
      eventsPerTenant: env.SVC_AUDIT_EVENTS_PER_TENANT ?? 5000,
      maxTenants: env.SVC_AUDIT_MAX_TENANTS ?? 100,
      retentionDays: env.SVC_AUDIT_RETENTION_DAYS ?? 90,
    },
    studio: {
      store: env.SVC_STUDIO_STORE ?? defaultRecordStore(env),
      retentionDays: env.SVC_STUDIO_RETENTION_DAYS ?? 30,
    },
    tenancy: { defaultTenant: env.SVC_TENANT },
    state,
    provider: {
      url: env.SVC_PROVIDER_URL,
      kind: providerKind(env),
      model: env.SVC_MODEL,
      apiKey: env.SVC_PROVIDER_API_KEY ?? env.SVC_API_KEY,
      timeoutMs: env.SVC_PROVIDER_TIMEOUT_MS ?? 60_000,
      maxTurns: env.SVC_MAX_TURNS ?? 8,
    },
    tools: {
      timeoutMs: env.SVC_TOOL_TIMEOUT_MS ?? 30_000,
      validationTimeoutMs: env.SVC_SCHEMA_TIMEOUT_MS ?? 250,
      compileMsPerMin: env.SVC_SCHEMA_COMPILE_MS_PER_MIN ?? 5000,
      allowedHosts: commaList(env.SVC_TOOL_ALLOWED_HOSTS),
      upstreamListTtlMs: env.SVC_UPSTREAM_TOOLS_TTL_MS ?? 300_000,
    },
    runLimits: runLimits(env),
    runEvents: {
      maxPerRun: env.SVC_RUN_EVENTS_MAX ?? 10_000,
      retentionMs: env.SVC_RUN_EVENTS_RETENTION_MS ?? 7 * 24 * 3_600_000,
      heartbeatMs: env.SVC_STREAM_HEARTBEAT_MS ?? 15_000,
      webhookSecret: env.SVC_RUN_WEBHOOK_SECRET,
    },
    budgets: {
      dailyTokens: env.SVC_TOKEN_BUDGET_DAILY,
      monthlyTokens: env.SVC_TOKEN_BUDGET_MONTHLY,
    },
    mcp: {
      mode: env.SVC_MCP_MODE ?? 'stateful',
      allowedHosts: commaList(env.SVC_MCP_ALLOWED_HOSTS),
      allowedOrigins: commaList(env.SVC_MCP_ALLOWED_ORIGINS),
      ...sessionQuotas(env),
      sessionIdleMs: env.SVC_MCP_SESSION_IDLE_MS ?? 30 * 60_000,
      maxSubscriptions: env.SVC_MCP_MAX_SUBSCRIPTIONS ?? 1024,
    },
    messaging: {
      chataWebhook: env.SVC_CHATA_WEBHOOK,
      chatbWebhook: env.SVC_CHATB_WEBHOOK,
      secret: env.SVC_MESSAGING_SECRET,
      slackTenants: slackTenants(env.SVC_SLACK_TENANTS),
      outboxPollMs: env.SVC_OUTBOX_POLL_MS ?? 1000,
      outboxMaxAttempts: env.SVC_OUTBOX_MAX_ATTEMPTS ?? 8,
      outboxRetryBaseMs: env.SVC_OUTBOX_RETRY_BASE_MS ?? 2000,
    },
    board: boardConfig(env, state),
    telemetry: telemetryConfig(env, env.SVC_METRICS_PUBLIC ?? false),
  };
}
