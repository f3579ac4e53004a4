import { describe, expect, it } from '@jest/globals';
import { ConfigError } from './config-error.js';
import { loadConfig } from './load-config.js';

function errorOf(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('gives the contract defaults when nothing is set', () => {
    const config = loadConfig({});
    expect(config.server).toMatchObject({
      host: '127.0.0.1',
      port: 8080,
      maxBodyBytes: 1024 * 1024,
      maxJsonDepth: 64,
    });
    expect(config.state).toMatchObject({
      backend: 'sqlite',
      sqlitePath: './data/state.sqlite',
      leaseTtlMs: 30_000,
      takeOverRuns: true,
    });
    expect(config.board).toEqual({ backend: 'sqlite', sqlitePath: './data/board.sqlite' });
    expect(config.provider).toMatchObject({ kind: 'echo', timeoutMs: 60_000, maxTurns: 8 });
    expect(config.tools.timeoutMs).toBe(30_000);
    expect(config.auth).toMatchObject({ apiKey: undefined, rateLimitPerMin: 1200 });
    expect(config.telemetry).toMatchObject({
      tracing: true,
      resource: { 'service.name': 'svc-gateway' },
      traces: { otlp: undefined, sampler: { name: 'parentbased_always_on' } },
      metrics: { prometheus: true, otlp: undefined },
      metricsPublic: false,
    });
  });

  it('reads the telemetry variables', () => {
    const config = loadConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel:4318',
      OTEL_SDK_DISABLED: 'true',
      OTEL_SERVICE_NAME: 'gateway-eu',
      SVC_METRICS_PUBLIC: 'yes',
    });
    // Disabled: nothing goes out over OTLP, whatever the endpoint; /metrics stays.
    expect(config.telemetry).toMatchObject({
      tracing: false,
      resource: { 'service.name': 'gateway-eu' },
      traces: { otlp: undefined },
      metrics: { prometheus: true, otlp: undefined },
      metricsPublic: true,
    });
    expect(errorOf({ SVC_METRICS_PUBLIC: 'maybe' })).toBe(
      'SVC_METRICS_PUBLIC must be true or false (got "maybe")',
    );
  });

  it('prepares the state statements on PostgreSQL unless SVC_STATE_PREPARED_STATEMENTS is false', () => {
    expect(loadConfig({}).state.preparedStatements).toBe(true);
    expect(loadConfig({ SVC_STATE_PREPARED_STATEMENTS: 'false' }).state.preparedStatements).toBe(
      false,
    );
    expect(errorOf({ SVC_STATE_PREPARED_STATEMENTS: 'sometimes' })).toBe(
      'SVC_STATE_PREPARED_STATEMENTS must be true or false (got "sometimes")',
    );
  });

  it('keeps audit and studio in memory on sqlite and in the state backend on PostgreSQL', () => {
    const sqlite = loadConfig({});
    expect(sqlite.audit).toMatchObject({ store: 'memory', retentionDays: 90 });
    expect(sqlite.studio).toEqual({ store: 'memory', retentionDays: 30 });
    const postgres = loadConfig({
      SVC_STATE_BACKEND: 'postgres',
      SVC_STATE_DSN: 'postgres://svc@db:5432/svc',
    });
    expect(postgres.audit.store).toBe('state');
    expect(postgres.studio.store).toBe('state');
    const chosen = loadConfig({
      SVC_AUDIT_STORE: 'state',
      SVC_STUDIO_STORE: 'state',
      SVC_AUDIT_RETENTION_DAYS: '0',
      SVC_STUDIO_RETENTION_DAYS: '7',
    });
    expect(chosen.audit).toMatchObject({ store: 'state', retentionDays: 0 });
    expect(chosen.studio).toEqual({ store: 'state', retentionDays: 7 });
    expect(errorOf({ SVC_AUDIT_STORE: 'disk' })).toBe(
      'SVC_AUDIT_STORE must be one of memory, state (got "disk")',
    );
    expect(errorOf({ SVC_STUDIO_RETENTION_DAYS: '0' })).toBe(
      'SVC_STUDIO_RETENTION_DAYS must be an integer between 1 and 36500 (got "0")',
    );
  });

  it('reads SVC_MAX_JSON_DEPTH within its range', () => {
    expect(loadConfig({ SVC_MAX_JSON_DEPTH: '100' }).server.maxJsonDepth).toBe(100);
    expect(errorOf({ SVC_MAX_JSON_DEPTH: '5000' })).toBe(
      'SVC_MAX_JSON_DEPTH must be an integer between 16 and 512 (got "5000")',
    );
  });

  it('reads every variable of the spec table', () => {
    const config = loadConfig({
      SVC_API_KEY: 'gateway-key-1',
      SVC_PROVIDER_URL: 'http://llm.local:8000/v1',
      SVC_MODEL: 'qwen',
      SVC_TENANT: 'acme',
      SVC_CHATA_WEBHOOK: 'https://hooks.slack.test/a',
      SVC_CHATB_WEBHOOK: 'https://teams.test/b',
      SVC_BOARD_DB: '/var/lib/svc/board.sqlite',
      SVC_STATE_BACKEND: 'postgres',
      SVC_STATE_DSN: 'postgres://svc:pw@db:5432/svc',
      SVC_STATE_SQLITE: '/tmp/ignored.sqlite',
    });
    expect(config.auth.apiKey).toBe('gateway-key-1');
    expect(config.provider).toMatchObject({
      url: 'http://llm.local:8000/v1',
      kind: 'openai',
      model: 'qwen',
    });
    expect(config.tenancy.defaultTenant).toBe('acme');
    expect(config.messaging).toMatchObject({
      chataWebhook: 'https://hooks.slack.test/a',
      chatbWebhook: 'https://teams.test/b',
    });
    expect(config.board).toEqual({ backend: 'sqlite', sqlitePath: '/var/lib/svc/board.sqlite' });
    expect(config.state).toMatchObject({
      backend: 'postgres',
      dsn: 'postgres://svc:pw@db:5432/svc',
    });
  });

  it('sends SVC_API_KEY upstream unless SVC_PROVIDER_API_KEY overrides it', () => {
    expect(loadConfig({ SVC_API_KEY: 'gateway-key-1' }).provider.apiKey).toBe('gateway-key-1');
    expect(
      loadConfig({ SVC_API_KEY: 'gateway-key-1', SVC_PROVIDER_API_KEY: 'sk-up' }).provider.apiKey,
    ).toBe('sk-up');
  });

  it('detects the provider kind from the URL, else SVC_PROVIDER_KIND, else openai', () => {
    const kind = (env: Record<string, string>) => loadConfig(env).provider.kind;
    expect(kind({ SVC_PROVIDER_URL: 'http://h/v1/chat/completions' })).toBe('openai');
    expect(kind({ SVC_PROVIDER_URL: 'http://h/v1/', SVC_PROVIDER_KIND: 'native' })).toBe('openai');
    expect(kind({ SVC_PROVIDER_URL: 'http://h/chat', SVC_PROVIDER_KIND: 'native' })).toBe('native');
    expect(kind({ SVC_PROVIDER_URL: 'http://h/chat' })).toBe('openai');
  });

  it('reads the MCP host settings, stateful with loopback-only checks by default', () => {
    expect(loadConfig({}).mcp).toEqual({
      mode: 'stateful',
      allowedHosts: undefined,
      allowedOrigins: undefined,
      maxSessions: 1000,
      maxSessionsPerTenant: 100,
      maxSessionsPerKey: 100,
      sessionIdleMs: 1_800_000,
      maxSubscriptions: 1024,
    });
    const mcp = loadConfig({
      SVC_MCP_MODE: 'stateless',
      SVC_MCP_ALLOWED_HOSTS: 'MCP.example.com, gw.internal:8443,[::1]',
      SVC_MCP_ALLOWED_ORIGINS: 'https://app.example.com,http://localhost:6274',
      SVC_MCP_MAX_SESSIONS: '50',
      SVC_MCP_SESSION_IDLE_MS: '60000',
      SVC_MCP_MAX_SUBSCRIPTIONS: '20',
    }).mcp;
    expect(mcp).toEqual({
      mode: 'stateless',
      allowedHosts: ['mcp.example.com', 'gw.internal:8443', '[::1]'],
      allowedOrigins: ['https://app.example.com', 'http://localhost:6274'],
      maxSessions: 50,
      maxSessionsPerTenant: 10,
      maxSessionsPerKey: 10,
      sessionIdleMs: 60_000,
      maxSubscriptions: 20,
    });
    expect(errorOf({ SVC_MCP_MODE: 'sticky' })).toBe(
      'SVC_MCP_MODE must be one of stateful, stateless (got "sticky")',
    );
    expect(errorOf({ SVC_MCP_ALLOWED_ORIGINS: 'https://a.example/' })).toContain(
      'SVC_MCP_ALLOWED_ORIGINS must be a comma-separated list of origins',
    );
    expect(errorOf({ SVC_MCP_ALLOWED_HOSTS: 'http://a.example' })).toContain(
      'SVC_MCP_ALLOWED_HOSTS must be a comma-separated list of host names',
    );
  });

  it('reads the tool allow list: names, *.suffix, IPs, CIDRs, *; names a bad entry', () => {
    expect(
      loadConfig({
        SVC_TOOL_ALLOWED_HOSTS:
          'Tools.Example.com, *.svc.cluster.local,10.0.0.0/8,[::1],fd00::/8,*',
      }).tools.allowedHosts,
    ).toEqual(['tools.example.com', '*.svc.cluster.local', '10.0.0.0/8', '[::1]', 'fd00::/8', '*']);
    expect(errorOf({ SVC_TOOL_ALLOWED_HOSTS: 'tools.example.com,http://x.example/' })).toBe(
      'SVC_TOOL_ALLOWED_HOSTS must be a comma-separated list of host names, *.suffix patterns, ' +
        'IP addresses, CIDRs or *: "http://x.example/" is not a host name, *.suffix, IP address, ' +
        'CIDR or * (got "tools.example.com,http://x.example/")',
    );
    expect(errorOf({ SVC_TOOL_ALLOWED_HOSTS: '10.0.0.0/40' })).toContain('"10.0.0.0/40"');
  });

  it('gives each tenant and key a share of the MCP sessions, at least 10 or all of them', () => {
    const quotas = (env: Record<string, string>) => {
      const { maxSessions, maxSessionsPerTenant, maxSessionsPerKey } = loadConfig(env).mcp;
      return [maxSessions, maxSessionsPerTenant, maxSessionsPerKey];
    };
    expect(quotas({ SVC_MCP_MAX_SESSIONS: '2' })).toEqual([2, 2, 2]);
    expect(quotas({ SVC_MCP_MAX_SESSIONS: '50' })).toEqual([50, 10, 10]);
    expect(quotas({ SVC_MCP_MAX_SESSIONS: '5000' })).toEqual([5000, 500, 500]);
    expect(quotas({ SVC_MCP_SESSIONS_PER_TENANT: '20', SVC_MCP_SESSIONS_PER_KEY: '5' })).toEqual([
      1000, 20, 5,
    ]);
    // The key quota follows a tenant quota that was set; neither exceeds the replica's limit.
    expect(quotas({ SVC_MCP_SESSIONS_PER_TENANT: '30' })).toEqual([1000, 30, 30]);
    expect(quotas({ SVC_MCP_MAX_SESSIONS: '50', SVC_MCP_SESSIONS_PER_TENANT: '80' })).toEqual([
      50, 50, 50,
    ]);
    expect(errorOf({ SVC_MCP_SESSIONS_PER_KEY: '0' })).toContain(
      'SVC_MCP_SESSIONS_PER_KEY must be an integer between 1 and',
    );
  });

  it('reads the failed-authentication limit and the audit bounds', () => {
    const defaults = loadConfig({});
    expect(defaults.auth).toMatchObject({ failureLimit: 100, failureWindowMs: 60_000 });
    expect(defaults.audit).toMatchObject({ eventsPerTenant: 5000, maxTenants: 100 });
    const set = loadConfig({
      SVC_AUTH_FAILURE_LIMIT: '0',
      SVC_AUTH_FAILURE_WINDOW_MS: '5000',
      SVC_AUDIT_EVENTS_PER_TENANT: '200',
      SVC_AUDIT_MAX_TENANTS: '3',
    });
    expect(set.auth).toMatchObject({ failureLimit: 0, failureWindowMs: 5000 });
    expect(set.audit).toMatchObject({ eventsPerTenant: 200, maxTenants: 3 });
    expect(errorOf({ SVC_AUTH_FAILURE_WINDOW_MS: '10' })).toContain(
      'SVC_AUTH_FAILURE_WINDOW_MS must be an integer between 1000 and',
    );
    expect(errorOf({ SVC_AUDIT_MAX_TENANTS: '0' })).toContain('SVC_AUDIT_MAX_TENANTS');
  });

  it('reads the default token budgets: none unless set, each a positive integer', () => {
    expect(loadConfig({}).budgets).toEqual({ dailyTokens: undefined, monthlyTokens: undefined });
    const set = loadConfig({
      SVC_TOKEN_BUDGET_DAILY: '50000',
      SVC_TOKEN_BUDGET_MONTHLY: '1000000',
    });
    expect(set.budgets).toEqual({ dailyTokens: 50_000, monthlyTokens: 1_000_000 });
    expect(errorOf({ SVC_TOKEN_BUDGET_DAILY: '0' })).toBe(
      'SVC_TOKEN_BUDGET_DAILY must be an integer between 1 and 1000000000000000 (got "0")',
    );
    expect(errorOf({ SVC_TOKEN_BUDGET_MONTHLY: 'lots' })).toContain('SVC_TOKEN_BUDGET_MONTHLY');
    // The ledger keeps the model name a run asks for: SVC_MODEL is bounded like a request's.
    expect(errorOf({ SVC_MODEL: 'm'.repeat(257) })).toContain('SVC_MODEL');
  });

  it('trusts no proxy unless SVC_TRUST_PROXY names hops or proxy addresses', () => {
    const trust = (value?: string) =>
      loadConfig(value === undefined ? {} : { SVC_TRUST_PROXY: value }).server.trustProxy;
    expect(trust()).toBe(false);
    expect(trust('false')).toBe(false);
    expect(trust('1')).toBe(1);
    expect(trust('loopback, 10.0.0.0/8,fd00::/8 ,192.0.2.7')).toEqual([
      'loopback',
      '10.0.0.0/8',
      'fd00::/8',
      '192.0.2.7',
    ]);
    for (const bad of ['true', 'yes', '11', '10.0.0.0/33', 'proxy.internal', '1.2.3.4/8/9']) {
      expect(errorOf({ SVC_TRUST_PROXY: bad })).toBe(
        'SVC_TRUST_PROXY must be false, a number of proxy hops (1 to 10) or a comma-separated ' +
          `list of proxy addresses (IP, CIDR, loopback, linklocal, uniquelocal) (got "${bad}")`,
      );
    }
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig({ SVC_PORT: '', SVC_STATE_BACKEND: '' }).server.port).toBe(8080);
  });

  it('names the variable, the problem and the value on one line', () => {
    expect(errorOf({ SVC_STATE_BACKEND: 'mysql' })).toBe(
      'SVC_STATE_BACKEND must be one of sqlite, postgres (got "mysql")',
    );
    expect(errorOf({ SVC_PORT: 'abc' })).toBe(
      'SVC_PORT must be an integer between 1 and 65535 (got "abc")',
    );
    expect(errorOf({ SVC_PORT: '70000' })).toContain(
      'SVC_PORT must be an integer between 1 and 65535',
    );
    expect(errorOf({ SVC_PROVIDER_URL: 'not a url' })).toBe(
      'SVC_PROVIDER_URL must be an absolute http:// or https:// URL (got "not a url")',
    );
    expect(errorOf({ SVC_LOG_LEVEL: 'loud' })).toContain(
      'SVC_LOG_LEVEL must be one of fatal, error',
    );
  });

  it('reports every bad variable in the same line', () => {
    const message = errorOf({ SVC_PORT: 'x', SVC_MAX_TURNS: '0' });
    expect(message).toContain('SVC_PORT');
    expect(message).toContain('SVC_MAX_TURNS');
    expect(message).not.toContain('\n');
  });

  it('requires a well-formed DSN for postgres and never echoes it', () => {
    expect(errorOf({ SVC_STATE_BACKEND: 'postgres' })).toBe(
      'SVC_STATE_DSN is required when SVC_STATE_BACKEND is postgres',
    );
    const malformed = errorOf({
      SVC_STATE_BACKEND: 'postgres',
      SVC_STATE_DSN: 'mysql://root:hunter2@db/x',
    });
    expect(malformed).toContain(
      'SVC_STATE_DSN must be a postgres:// or postgresql:// connection URL',
    );
    expect(malformed).not.toContain('hunter2');
  });

  it('puts the board where SVC_BOARD_DB says, else beside the state (its DSN on postgres)', () => {
    const dsn = 'postgres://svc:pw@db:5432/svc';
    const postgres = { SVC_STATE_BACKEND: 'postgres', SVC_STATE_DSN: dsn };
    expect(loadConfig(postgres).board).toEqual({
      backend: 'postgres',
      dsn,
      queryTimeoutMs: 30_000,
    });
    expect(loadConfig({ ...postgres, SVC_BOARD_DB: './board.sqlite' }).board).toEqual({
      backend: 'sqlite',
      sqlitePath: './board.sqlite',
    });
    const other = 'postgresql://board:pw2@boards:5433/kanban?sslmode=require';
    expect(loadConfig({ SVC_BOARD_DB: other, SVC_STATE_QUERY_TIMEOUT_MS: '5000' }).board).toEqual({
      backend: 'postgres',
      dsn: other,
      queryTimeoutMs: 5000,
    });
    expect(loadConfig({ SVC_BOARD_DB: 'C:\\data\\board.sqlite' }).board.backend).toBe('sqlite');
  });

  it('refuses a board URL that is not a PostgreSQL one with a host, and never echoes it', () => {
    const message =
      'SVC_BOARD_DB must be a file path or a postgres:// or postgresql:// connection URL with a host';
    expect(errorOf({ SVC_BOARD_DB: 'postgres://' })).toBe(message);
    const mysql = errorOf({ SVC_BOARD_DB: 'mysql://root:hunter2@db/board' });
    expect(mysql).toBe(message);
    expect(errorOf({ SVC_BOARD_DB: 'postgres://svc:hunter2@/board' })).toBe(message);
  });

  it('never echoes the user:password@ or the query of a refused URL', () => {
    const provider = errorOf({ SVC_PROVIDER_URL: 'ftp://svc:hunter2@models.internal/v1' });
    expect(provider).toBe(
      'SVC_PROVIDER_URL must be an absolute http:// or https:// URL (got "ftp://***@models.internal/v1")',
    );
    // A password with `/` or `@` in it does not parse as a URL; everything before the last @ goes.
    const otel = errorOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel:pa/ss@w0rd@collector:4318' });
    expect(otel).toContain('OTEL_EXPORTER_OTLP_ENDPOINT must be an absolute http:// or https://');
    expect(otel).not.toMatch(/pa\/ss|w0rd|otel:/);
    const query = errorOf({ SVC_PROVIDER_URL: 'models.internal/v1?api_key=sk-hunter2' });
    expect(query).not.toContain('hunter2');
    const origins = errorOf({ SVC_MCP_ALLOWED_ORIGINS: 'https://admin:hunter2@studio' });
    expect(origins).not.toContain('hunter2');
  });

  it('reads SVC_SLACK_TENANTS as workspace → tenant pairs and refuses malformed ones', () => {
    const config = loadConfig({ SVC_SLACK_TENANTS: 'T0123=acme, E0456 = beta' });
    expect([...(config.messaging.slackTenants ?? [])]).toEqual([
      ['T0123', 'acme'],
      ['E0456', 'beta'],
    ]);
    expect(loadConfig({}).messaging.slackTenants).toBeUndefined();
    expect(errorOf({ SVC_SLACK_TENANTS: 'T0123' })).toContain(
      'SVC_SLACK_TENANTS must be a comma-separated list of SlackTeamId=tenant pairs',
    );
    expect(errorOf({ SVC_SLACK_TENANTS: 't0123=acme' })).toContain('SVC_SLACK_TENANTS must be');
    expect(errorOf({ SVC_SLACK_TENANTS: 'T1=a,T1=b' })).toBe(
      'SVC_SLACK_TENANTS names T1 more than once',
    );
    expect(errorOf({ SVC_SLACK_TENANTS: `T1=${'a'.repeat(129)}` })).toContain('longer than 128');
  });

  it('never echoes a secret value', () => {
    expect(errorOf({ SVC_API_KEY: 'short' })).toBe(
      'SVC_API_KEY must be at least 8 characters long',
    );
  });

  it('names a CLI flag instead of the variable when the value came from it', () => {
    let message = '';
    try {
      loadConfig({ SVC_PORT: 'abc' }, { SVC_PORT: '--port' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toBe('--port must be an integer between 1 and 65535 (got "abc")');
  });

  it('bounds tool calls and sessions by default, and reads the run limits', () => {
    expect(loadConfig({}).runLimits).toEqual({
      maxToolCallsPerTurn: 32,
      maxToolCallsPerRun: 256,
      sessionMaxBytes: 1024 * 1024,
      toolResultMaxBytes: 32 * 1024,
    });
    const config = loadConfig({
      SVC_MAX_TOOL_CALLS_PER_TURN: '4',
      SVC_MAX_TOOL_CALLS_PER_RUN: '20',
      SVC_SESSION_MAX_BYTES: '65536',
      SVC_TOOL_RESULT_MAX_BYTES: '8192',
    });
    expect(config.runLimits).toEqual({
      maxToolCallsPerTurn: 4,
      maxToolCallsPerRun: 20,
      sessionMaxBytes: 65536,
      toolResultMaxBytes: 8192,
    });
    expect(errorOf({ SVC_MAX_TOOL_CALLS_PER_TURN: '0' })).toBe(
      'SVC_MAX_TOOL_CALLS_PER_TURN must be an integer between 1 and 10000 (got "0")',
    );
    expect(errorOf({ SVC_SESSION_MAX_BYTES: '1000' })).toMatch(/^SVC_SESSION_MAX_BYTES must be/);
    expect(errorOf({ SVC_SESSION_MAX_BYTES: '65536', SVC_TOOL_RESULT_MAX_BYTES: '32768' })).toBe(
      'SVC_TOOL_RESULT_MAX_BYTES must be at most a quarter of SVC_SESSION_MAX_BYTES (65536), so that a session holds several results (got 32768)',
    );
  });
});
