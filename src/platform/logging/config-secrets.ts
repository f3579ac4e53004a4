import type { GatewayConfig, OtlpExportConfig } from '../config/gateway-config.js';

/**
 * The secret parts of a URL: its password (and user name) when it has `user:password@`, and
 * with `path: true` also its path and query, for addresses that are credentials themselves
 * (Slack and Teams incoming webhooks). Scheme and host are not secret, and as patterns they
 * would blank every URL in a log line.
 */
export function urlSecrets(value: string | undefined, options: { path?: boolean } = {}): string[] {
  if (value === undefined) return [];
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return [value];
  }
  const secrets: string[] = [];
  if (url.password !== '') secrets.push(url.password, safeDecode(url.password));
  if (url.username !== '' && url.password === '') secrets.push(url.username);
  if (options.path) secrets.push(`${url.pathname}${url.search}`);
  return secrets;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The board's own DSN, when it has one besides the state backend's (by default it is that one). */
function boardDsn({ board, state }: GatewayConfig): string | undefined {
  return board.backend === 'postgres' && board.dsn !== state.dsn ? board.dsn : undefined;
}

/**
 * An OTLP exporter's header values (collector tokens; which of them are secret cannot be told,
 * so all are) and the password of its URL.
 */
function otlpSecrets(otlp: OtlpExportConfig | undefined): string[] {
  if (!otlp) return [];
  return [...Object.values(otlp.headers), ...urlSecrets(otlp.url)];
}

/** Every configured value that is a credential, so no log line shows one in any spelling. */
export function configSecrets(config: GatewayConfig): string[] {
  const secrets = [
    config.auth.apiKey,
    config.provider.apiKey,
    config.messaging.secret,
    config.runEvents.webhookSecret,
    ...urlSecrets(config.provider.url),
    ...urlSecrets(config.state.dsn),
    ...urlSecrets(boardDsn(config)),
    ...otlpSecrets(config.telemetry.traces.otlp),
    ...otlpSecrets(config.telemetry.metrics.otlp),
    ...urlSecrets(config.messaging.chataWebhook, { path: true }),
    ...urlSecrets(config.messaging.chatbWebhook, { path: true }),
  ];
  return secrets.filter((secret): secret is string => secret !== undefined && secret !== '');
}
