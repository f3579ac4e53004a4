import { ConfigError } from '../platform/config/config-error.js';
import { CliFailure } from './cli-errors.js';
import { type ServerSentEvent, readEventStream } from './event-stream-parser.js';

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

/** A `text/event-stream` answer: its events as they arrive, and where the run can be read. */
export interface GatewayEvents {
  location: string | null;
  events: AsyncGenerator<ServerSentEvent>;
  /** Closes the connection (the events end). */
  close(): void;
}

/**
 * The gateway cannot be reached, did not answer in time, or answered 5xx: something that may
 * pass (a follower of a run's events tries again; a single call reports it).
 */
export class GatewayUnavailable extends CliFailure {}

interface RequestOptions {
  body?: unknown;
  timeoutMs?: number;
  accept?: string;
  headers?: Record<string, string>;
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
    const response = await this.send(method, path, { ...options, accept: 'application/json' });
    const body = await this.json(what, response);
    return { status: response.status, body: body as T };
  }

  /**
   * A call answered with `text/event-stream` (a streamed run, a run's events). A refusal is
   * thrown as `call` throws it; a JSON answer of 2xx (a gateway that answered without
   * streaming) is returned as it is.
   */
  async events(
    what: string,
    method: 'GET' | 'POST',
    path: string,
    options: { body?: unknown; lastEventId?: string } = {},
  ): Promise<GatewayEvents | GatewayAnswer<unknown>> {
    const controller = new AbortController();
    const headers: Record<string, string> =
      options.lastEventId === undefined ? {} : { 'Last-Event-ID': options.lastEventId };
    const response = await this.send(method, path, {
      body: options.body,
      accept: 'text/event-stream',
      headers,
      signal: controller.signal,
    });
    const type = response.headers.get('content-type') ?? '';
    if (!type.startsWith('text/event-stream') || !response.body) {
      return { status: response.status, body: await this.json(what, response) };
    }
    const body = response.body as unknown as AsyncIterable<Uint8Array>;
    return {
      location: response.headers.get('location'),
      events: readEventStream(body),
      close: () => controller.abort(),
    };
  }

  private async send(
    method: 'GET' | 'POST',
    path: string,
    options: RequestOptions & { signal?: AbortSignal },
  ): Promise<Response> {
    const headers: Record<string, string> = {
      Accept: options.accept ?? 'application/json',
      ...options.headers,
    };
    if (this.apiKey !== undefined) headers.Authorization = `Bearer ${this.apiKey}`;
    if (options.body !== undefined) headers['Content-Type'] = 'application/json';
    const signals = [options.signal];
    if (options.timeoutMs !== undefined) signals.push(AbortSignal.timeout(options.timeoutMs));
    const signal = signals.filter((one) => one !== undefined);
    try {
      return await fetch(`${this.baseUrl}${path}`, {
        method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        redirect: 'manual',
        signal: signal.length > 0 ? AbortSignal.any(signal) : undefined,
      });
    } catch (error) {
      if (error instanceof DOMException && error.name === 'TimeoutError') {
        throw new GatewayUnavailable(
          `no answer from the gateway at ${this.baseUrl} within ${Math.round((options.timeoutMs ?? 0) / 1000)} s`,
        );
      }
      throw new GatewayUnavailable(`no gateway at ${this.baseUrl}: ${networkReason(error)}`);
    }
  }

  /** The JSON body of a 2xx answer; anything else is the CliFailure that says why. */
  private async json(what: string, response: Response): Promise<unknown> {
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new (response.status >= 500 ? GatewayUnavailable : CliFailure)(
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
      throw new (response.status >= 500 ? GatewayUnavailable : CliFailure)(
        `${what} failed (${response.status}): ${problemDetail(body, response.statusText)}`,
      );
    }
    return body;
  }
}
