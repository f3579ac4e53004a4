import { ConfigError } from '../platform/config/config-error.js';
import { type GatewayConfig, authDisabled } from '../platform/config/gateway-config.js';
import { type EnvSource, type SourceLabels, loadConfig } from '../platform/config/load-config.js';

export interface ServeOptions {
  host?: string;
  port?: string;
  tenant?: string;
  otelEndpoint?: string;
  insecure?: boolean;
}

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|::1|\[::1\])$/i;

/**
 * Flags win over the environment; messages then name the flag, not the variable.
 * `--otel-endpoint` is the collector's base URL (as OTEL_EXPORTER_OTLP_ENDPOINT) and replaces
 * every endpoint variable, the per-signal ones included: a flag typed for this process beats
 * the environment, whichever variable it set.
 */
export function serveConfig(options: ServeOptions, env: EnvSource = process.env): GatewayConfig {
  const overrides: EnvSource = {};
  if (options.otelEndpoint !== undefined) {
    overrides.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT = undefined;
    overrides.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT = undefined;
  }
  const labels: SourceLabels = {};
  const flag = (name: keyof ServeOptions, variable: keyof SourceLabels, label: string) => {
    const value = options[name];
    if (value === undefined) return;
    overrides[variable] = String(value);
    labels[variable] = label;
  };
  flag('host', 'SVC_HOST', '--host');
  flag('port', 'SVC_PORT', '--port');
  flag('tenant', 'SVC_TENANT', '--tenant');
  flag('otelEndpoint', 'OTEL_EXPORTER_OTLP_ENDPOINT', '--otel-endpoint');
  flag('insecure', 'SVC_INSECURE', '--insecure');
  const config = loadConfig({ ...env, ...overrides }, labels);
  const { host, insecure } = config.server;
  if (authDisabled(config.auth) && !LOOPBACK.test(host) && !insecure) {
    throw new ConfigError(
      `refusing to serve on ${host} without SVC_API_KEY: every caller would have full access. ` +
        'Set SVC_API_KEY (or SVC_KEYS_FILE), bind 127.0.0.1, or pass --insecure',
    );
  }
  return config;
}
