import { ConfigError } from '../platform/config/config-error.js';
import { CliFailure } from './cli-errors.js';

/** Node's words for the listen errors an operator meets, in the form `svc:` lines use. */
const LISTEN_ERRORS: Record<string, string> = {
  EADDRINUSE: 'address already in use',
  EACCES: 'permission denied',
  EADDRNOTAVAIL: 'address not available',
};

/** `host:port`, with an IPv6 address in brackets. */
function endpoint(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/**
 * The one line `svc serve` prints when it cannot start: `cannot listen on 127.0.0.1:8080: address
 * already in use` for a listen error, `cannot start: <reason>` for anything else (a board file
 * that cannot be opened, a module that failed to initialise).
 */
export function startFailure(error: unknown, host: string, port: number): string {
  const { code, syscall, message } = (error ?? {}) as {
    code?: unknown;
    syscall?: unknown;
    message?: unknown;
  };
  if (syscall === 'listen' && typeof code === 'string') {
    return `cannot listen on ${endpoint(host, port)}: ${LISTEN_ERRORS[code] ?? code.toLowerCase()}`;
  }
  return `cannot start: ${typeof message === 'string' ? message : String(error)}`;
}

/** The error `svc serve` reports for a failed start: a configuration error stays one (exit 2). */
export function startError(error: unknown, host: string, port: number): Error {
  return error instanceof ConfigError ? error : new CliFailure(startFailure(error, host, port));
}
