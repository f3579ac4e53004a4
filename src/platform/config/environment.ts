import 'reflect-metadata';
import {
  IsDefined,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  MinLength,
  ValidateIf,
} from 'class-validator';
import { OptionalBoolean, OptionalInt, OptionalOneOf, commaList } from './env-decorators.js';
import { IsHostAllowList } from './host-list.validator.js';
import { OTEL_SECRET_VARIABLES, OtelEnvironment } from './otel-environment.js';
import { IsTrustProxy } from './trust-proxy.js';
import { IsBoardDatabase, IsHttpUrl, IsPostgresDsn } from './url.validators.js';

export const STATE_BACKENDS = ['sqlite', 'postgres'] as const;
export const PROVIDER_KINDS = ['openai', 'native'] as const;
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export const MCP_MODES = ['stateful', 'stateless'] as const;
/** Where the audit trail and the studio keep their records: this process, or the state backend. */
export const RECORD_STORES = ['memory', 'state'] as const;

/**
 * SVC_MAX_JSON_DEPTH's range: valid payloads need about 6 levels; past a few hundred, recursive
 * library code (JSON.stringify, loggers) comes near the stack's limit again.
 */
const MIN_JSON_DEPTH = 16;
const MAX_JSON_DEPTH = 512;

/** The largest token budget: far beyond any spend, and exact as a JavaScript number. */
export const MAX_TOKEN_BUDGET = 1_000_000_000_000_000;

/** `host`, `host:port`, `[::1]`, `[::1]:port`, or `*` (no check). */
const MCP_HOST = String.raw`(\*|([A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*|\[[0-9A-Fa-f:.]+\])(:\d{1,5})?)`;
/** `scheme://host[:port]` as browsers send it in `Origin`, or `*` (any origin). */
const MCP_ORIGIN = String.raw`(\*|[A-Za-z][A-Za-z0-9+.-]*://([A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*|\[[0-9A-Fa-f:.]+\])(:\d{1,5})?)`;

/**
 * Every environment variable the gateway reads, validated at boot. Values arrive as strings; empty
 * strings count as unset. Names follow the spec's table and CONTRACT.md section 1.
 */
export class Environment extends OtelEnvironment {
  // --- server (CONTRACT 1) ---
  @IsOptional() @IsString() @MinLength(1) SVC_HOST?: string;
  @OptionalInt(1, 65535) SVC_PORT?: number;
  @OptionalBoolean()
  SVC_INSECURE?: boolean;
  @OptionalInt(0, 600_000) SVC_SHUTDOWN_TIMEOUT_MS?: number;
  @OptionalInt(1024, 100 * 1024 * 1024) SVC_MAX_BODY_BYTES?: number;
  @OptionalInt(MIN_JSON_DEPTH, MAX_JSON_DEPTH) SVC_MAX_JSON_DEPTH?: number;
  @OptionalOneOf(LOG_LEVELS) SVC_LOG_LEVEL?: (typeof LOG_LEVELS)[number];
  @IsOptional() @IsTrustProxy() SVC_TRUST_PROXY?: string;

  // --- auth (spec 5, CONTRACT 2) ---
  @IsOptional()
  @IsString()
  @MinLength(8, { message: 'must be at least 8 characters long' })
  SVC_API_KEY?: string;
  @IsOptional() @IsString() SVC_KEYS_FILE?: string;
  @OptionalInt(0, 1_000_000) SVC_RATE_LIMIT_PER_MIN?: number;
  @OptionalInt(0, 1_000_000) SVC_AUTH_FAILURE_LIMIT?: number;
  @OptionalInt(1000, 86_400_000) SVC_AUTH_FAILURE_WINDOW_MS?: number;

  // --- audit (in-memory rings, or the state backend) and studio ---
  @OptionalOneOf(RECORD_STORES) SVC_AUDIT_STORE?: (typeof RECORD_STORES)[number];
  @OptionalInt(100, 1_000_000) SVC_AUDIT_EVENTS_PER_TENANT?: number;
  @OptionalInt(1, 100_000) SVC_AUDIT_MAX_TENANTS?: number;
  @OptionalInt(0, 36_500) SVC_AUDIT_RETENTION_DAYS?: number;
  @OptionalOneOf(RECORD_STORES) SVC_STUDIO_STORE?: (typeof RECORD_STORES)[number];
  @OptionalInt(1, 36_500) SVC_STUDIO_RETENTION_DAYS?: number;

  // --- tenancy ---
  @IsOptional() @IsString() @MaxLength(128) SVC_TENANT?: string;

  // --- state backend (spec 1 "Replicas and state backend") ---
  @OptionalOneOf(STATE_BACKENDS) SVC_STATE_BACKEND?: (typeof STATE_BACKENDS)[number];
  @ValidateIf(
    (env: Environment) => env.SVC_STATE_BACKEND === 'postgres' || env.SVC_STATE_DSN !== undefined,
  )
  @IsDefined({ message: 'is required when SVC_STATE_BACKEND is postgres' })
  @IsPostgresDsn()
  SVC_STATE_DSN?: string;
  @IsOptional() @IsString() SVC_STATE_SQLITE?: string;
  @OptionalInt(1, 1000) SVC_STATE_POOL_SIZE?: number;
  @OptionalInt(100, 600_000) SVC_STATE_QUERY_TIMEOUT_MS?: number;
  @OptionalBoolean()
  SVC_STATE_PREPARED_STATEMENTS?: boolean;
  @OptionalInt(1000, 3_600_000) SVC_LEASE_TTL_MS?: number;

  // --- model provider (CONTRACT 4) ---
  @IsOptional() @IsHttpUrl() SVC_PROVIDER_URL?: string;
  @OptionalOneOf(PROVIDER_KINDS) SVC_PROVIDER_KIND?: (typeof PROVIDER_KINDS)[number];
  @IsOptional() @IsString() SVC_PROVIDER_API_KEY?: string;
  // As long as a request's `model` may be (the usage ledger keeps the name).
  @IsOptional() @IsString() @MaxLength(256) SVC_MODEL?: string;
  @OptionalInt(100, 3_600_000) SVC_PROVIDER_TIMEOUT_MS?: number;
  @OptionalInt(1, 1000) SVC_MAX_TURNS?: number;
  @OptionalInt(100, 3_600_000) SVC_TOOL_TIMEOUT_MS?: number;
  @OptionalInt(10, 10_000) SVC_SCHEMA_TIMEOUT_MS?: number;
  @OptionalInt(0, 600_000) SVC_SCHEMA_COMPILE_MS_PER_MIN?: number;
  @IsOptional() @IsHostAllowList() SVC_TOOL_ALLOWED_HOSTS?: string;
  @OptionalInt(1000, 86_400_000) SVC_UPSTREAM_TOOLS_TTL_MS?: number;

  // --- run limits (bounded fan-out and state) ---
  @OptionalInt(1, 10_000) SVC_MAX_TOOL_CALLS_PER_TURN?: number;
  @OptionalInt(1, 1_000_000) SVC_MAX_TOOL_CALLS_PER_RUN?: number;
  @OptionalInt(16 * 1024, 256 * 1024 * 1024) SVC_SESSION_MAX_BYTES?: number;
  @OptionalInt(1024, 16 * 1024 * 1024) SVC_TOOL_RESULT_MAX_BYTES?: number;

  // --- run events, streams and webhooks (issue 14) ---
  @IsOptional()
  @IsString()
  @MinLength(16, { message: 'must be at least 16 characters' })
  SVC_RUN_WEBHOOK_SECRET?: string;
  @OptionalInt(100, 1_000_000) SVC_RUN_EVENTS_MAX?: number;
  @OptionalInt(60_000, 365 * 24 * 3_600_000) SVC_RUN_EVENTS_RETENTION_MS?: number;
  @OptionalInt(1_000, 300_000) SVC_STREAM_HEARTBEAT_MS?: number;

  // --- token budgets (issue 17): every tenant's default; PUT /v1/budgets/{tenant} overrides ---
  @OptionalInt(1, MAX_TOKEN_BUDGET) SVC_TOKEN_BUDGET_DAILY?: number;
  @OptionalInt(1, MAX_TOKEN_BUDGET) SVC_TOKEN_BUDGET_MONTHLY?: number;

  // --- MCP host (CONTRACT 6) ---
  @OptionalOneOf(MCP_MODES) SVC_MCP_MODE?: (typeof MCP_MODES)[number];
  @IsOptional()
  @Matches(commaList(MCP_HOST), {
    message: 'must be a comma-separated list of host names (optionally with :port) or *',
  })
  SVC_MCP_ALLOWED_HOSTS?: string;
  @IsOptional()
  @Matches(commaList(MCP_ORIGIN), {
    message: 'must be a comma-separated list of origins (scheme://host[:port]) or *',
  })
  SVC_MCP_ALLOWED_ORIGINS?: string;
  @OptionalInt(1, 1_000_000) SVC_MCP_MAX_SESSIONS?: number;
  @OptionalInt(1, 1_000_000) SVC_MCP_SESSIONS_PER_TENANT?: number;
  @OptionalInt(1, 1_000_000) SVC_MCP_SESSIONS_PER_KEY?: number;
  @OptionalInt(1000, 86_400_000) SVC_MCP_SESSION_IDLE_MS?: number;
  @OptionalInt(1, 1_000_000) SVC_MCP_MAX_SUBSCRIPTIONS?: number;

  // --- messaging (CONTRACT 7) ---
  @IsOptional() @IsHttpUrl() SVC_CHATA_WEBHOOK?: string;
  @IsOptional() @IsHttpUrl() SVC_CHATB_WEBHOOK?: string;
  @IsOptional() @IsString() SVC_MESSAGING_SECRET?: string;
  @IsOptional()
  @Matches(/^\s*[A-Z0-9]+\s*=\s*[^\s,=]+\s*(,\s*[A-Z0-9]+\s*=\s*[^\s,=]+\s*)*$/, {
    message: 'must be a comma-separated list of SlackTeamId=tenant pairs (T0123=acme,E0456=beta)',
  })
  SVC_SLACK_TENANTS?: string;
  @OptionalInt(10, 60_000) SVC_OUTBOX_POLL_MS?: number;
  @OptionalInt(1, 100) SVC_OUTBOX_MAX_ATTEMPTS?: number;
  @OptionalInt(10, 3_600_000) SVC_OUTBOX_RETRY_BASE_MS?: number;

  // --- board and metrics (the OTEL_ variables are in OtelEnvironment) ---
  /** A file path (sqlite) or a PostgreSQL URL; unset: the state DSN on postgres, else a file. */
  @IsOptional() @IsBoardDatabase() SVC_BOARD_DB?: string;
  @OptionalBoolean()
  SVC_METRICS_PUBLIC?: boolean;
}

/** Variables whose values must never be echoed in an error message or a log line. */
export const SECRET_VARIABLES: ReadonlySet<string> = new Set([
  'SVC_API_KEY',
  'SVC_PROVIDER_API_KEY',
  'SVC_MESSAGING_SECRET',
  'SVC_RUN_WEBHOOK_SECRET',
  // A chat webhook address is itself the credential that lets anyone post to the channel.
  'SVC_CHATA_WEBHOOK',
  'SVC_CHATB_WEBHOOK',
  'SVC_STATE_DSN',
  // A file path is not secret, but a refused value may be a DSN with its password.
  'SVC_BOARD_DB',
  ...OTEL_SECRET_VARIABLES,
]);
