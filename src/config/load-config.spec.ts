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
    expect(config.board.dbPath).toBe('./data/board.sqlite');
    expect(config.provider).toMatchObject({ kind: 'echo', timeoutMs: 60_000, maxTurns: 8 });
    expect(config.tools.timeoutMs).toBe(30_000);
    expect(config.auth).toMatchObject({ apiKey: undefined, rateLimitPerMin: 1200 });
    expect(config.telemetry).toEqual({
      otlpEndpoint: undefined,
      tracing: true,
      serviceName: 'svc-gateway',
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
    expect(config.telemetry).toEqual({
      otlpEndpoint: 'http://otel:4318',
      tracing: false,
      serviceName: 'gateway-eu',
      metricsPublic: true,
    });
    expect(errorOf({ SVC_METRICS_PUBLIC: 'maybe' })).toBe(
      'SVC_METRICS_PUBLIC must be true or false (got "maybe")',
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
    expect(config.board.dbPath).toBe('/var/lib/svc/board.sqlite');
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
      sessionIdleMs: 1_800_000,
    });
    const mcp = loadConfig({
      SVC_MCP_MODE: 'stateless',
      SVC_MCP_ALLOWED_HOSTS: 'MCP.example.com, gw.internal:8443,[::1]',
      SVC_MCP_ALLOWED_ORIGINS: 'https://app.example.com,http://localhost:6274',
      SVC_MCP_MAX_SESSIONS: '50',
      SVC_MCP_SESSION_IDLE_MS: '60000',
    }).mcp;
    expect(mcp).toEqual({
      mode: 'stateless',
      allowedHosts: ['mcp.example.com', 'gw.internal:8443', '[::1]'],
      allowedOrigins: ['https://app.example.com', 'http://localhost:6274'],
      maxSessions: 50,
      sessionIdleMs: 60_000,
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
});
