import { ConfigError } from '../platform/config/config-error.js';
import { CliFailure } from './cli-errors.js';

export const DEFAULT_GATEWAY_PORT = 8080;

type Env = Readonly<Record<string, string | undefined>>;

const set = (value: string | undefined): string | undefined =>
  value === undefined || value === '' ? undefined : value;

/**
 * The gateway `svc serve` would start here: SVC_HOST (a wildcard address means this machine) and
 * SVC_PORT, else http://127.0.0.1:8080.
 */
export function localGatewayUrl(env: Env = process.env): string {
  const port = set(env.SVC_PORT) ?? String(DEFAULT_GATEWAY_PORT);
  if (!/^\d{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65535) {
    throw new ConfigError(`SVC_PORT must be an integer between 1 and 65535 (got "${port}")`);
  }
  const configured = set(env.SVC_HOST);
  const host =
    configured === undefined || configured === '0.0.0.0' || configured === '::'
      ? '127.0.0.1'
      : configured;
  return `http://${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${port}`;
}

/** `--url` as given, checked; without a trailing slash. */
export function gatewayUrl(value: string | undefined, env: Env = process.env): string {
  if (value === undefined) return localGatewayUrl(env);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`--url must be an http:// or https:// URL (got "${value}")`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`--url must be an http:// or https:// URL (got "${value}")`);
  }
  if (url.username || url.password) {
    throw new ConfigError('--url must not carry a user or password: set SVC_API_KEY instead');
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

interface ProblemBody {
  detail?: unknown;
  title?: unknown;
}

function problemDetail(body: unknown, fallback: string): string {
  const { detail, title } = (body ?? {}) as ProblemBody;
  if (typeof detail === 'string' && detail) return detail;
  if (typeof title === 'string' && title) return title;
  return fallback;
}

/** Why fetch could not reach the gateway, as the system names it. */
function networkReason(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  const code = typeof cause?.code === 'string' ? cause.code : undefined;
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host not found';
    case 'ECONNRESET':
      return 'connection reset';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'host unreachable';
    default:
      return code ?? (typeof cause?.message === 'string' ? cause.message : String(error));
  }
}

export interface GatewayAnswer<T> {
  status: number;
  body: T;
}

/**
 * The few calls the CLI makes to a running gateway, with the credential from SVC_API_KEY.
 * Every failure is a CliFailure with one line that says what to do.
 */
export class GatewayClient {
  constructor(
    readonly baseUrl: string,
    private readonly apiKey: string | undefined,
  ) {}

  static fromEnv(url: string | undefined, env: Env = process.env): GatewayClient {
    return new GatewayClient(gatewayUrl(url, env), set(env.SVC_API_KEY));
  }

  /** `what` names the call in messages ("studio", "run"); `timeoutMs` bounds the whole call. */
  async call<T>(
    what: string,
    method: 'GET' | 'POST',
    path: string,
    options: { body?: unknown; timeoutMs?: number } = {},
  ): Promise<GatewayAnswer<T>> {
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (this.apiKey !== undefined) headers.Authorization = `Bearer ${this.apiKey}`;
    if (options.body !== undefined) headers['Content-Type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        redirect: 'manual',
        signal:
          options.timeoutMs === undefined ? undefined : AbortSignal.timeout(options.timeoutMs),
      });
    } catch (error) {
      if (error instanceof DOMException && error.name === 'TimeoutError') {
        throw new CliFailure(
          `no answer from the gateway at ${this.baseUrl} within ${Math.round((options.timeoutMs ?? 0) / 1000)} s`,
        );
      }
      throw new CliFailure(`no gateway at ${this.baseUrl}: ${networkReason(error)}`);
    }
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new CliFailure(
        `${this.baseUrl} is not an svc gateway (${what}: HTTP ${response.status}, not JSON)`,
      );
    }
    if (response.status === 401) {
      throw new CliFailure(
        this.apiKey === undefined
          ? `the gateway at ${this.baseUrl} needs an API key: set SVC_API_KEY`
          : `the gateway at ${this.baseUrl} does not accept the key in SVC_API_KEY (401)`,
      );
    }
    if (response.status === 403) {
      throw new CliFailure(
        `the key in SVC_API_KEY may not do this (403): ${problemDetail(body, 'forbidden')}`,
      );
    }
    if (response.status >= 300) {
      throw new CliFailure(
        `${what} failed (${response.status}): ${problemDetail(body, response.statusText)}`,
      );
    }
    return { status: response.status, body: body as T };
  }
}
