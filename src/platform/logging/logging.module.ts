import { DynamicModule, Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { type DestinationStream, stdSerializers } from 'pino';
import type { IncomingMessage } from 'node:http';
import type { ServerConfig } from '../config/gateway-config.js';
import { logTraceFields } from '../telemetry/log-trace-fields.js';
import { requestLogFields } from './request-scope.js';
import { LOG_SECRETS, scrubJsonLine, scrubSecrets } from './scrub-secrets.js';

/** A raw request passed to a log call is reduced to what the access log says about one. */
function requestSerializer(req: unknown): unknown {
  if (!(req instanceof Object) || !('socket' in req)) return req;
  const raw = req as IncomingMessage & { id?: unknown; originalUrl?: string };
  return {
    id: raw.id,
    method: raw.method,
    path: (raw.originalUrl ?? raw.url ?? '').split('?')[0],
    remote: raw.socket?.remoteAddress,
  };
}

/** A raw response passed to a log call is reduced to its status. */
function responseSerializer(res: unknown): unknown {
  if (!(res instanceof Object) || !('statusCode' in res)) return res;
  return { status: (res as { statusCode: number }).statusCode };
}

/** The fields of the request being handled and of the active span, on every line written. */
function lineContext(): object {
  return { ...requestLogFields(), ...logTraceFields() };
}

/**
 * Defence in depth: the request serializer below never includes headers, and these paths are
 * censored anyway should a log call pass a raw request or headers object.
 */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'headers.authorization',
  'headers["x-api-key"]',
  'res.headers["set-cookie"]',
];

/**
 * Structured JSON logs (pino) with the request (`req`: id, method, path, remote) on every line
 * written while it is handled, and the trace and span ids of the active span. Both come from
 * the mixin, read only when a line is written: a request makes no child logger. The request's
 * scope and its access log line are RequestEntryMiddleware's; nestjs-pino provides Nest's
 * logger and mounts no middleware. nestjs-pino keeps
 * one pino instance per process, so the first app of a process decides level and destination.
 * `secrets` (the configuration's credentials) are removed from every line written, in every
 * spelling the scrubber knows, whatever logged them and however.
 */
@Module({})
export class LoggingModule {
  static forRoot(
    server: ServerConfig,
    destination?: DestinationStream,
    secrets: readonly string[] = [],
  ): DynamicModule {
    for (const secret of secrets) LOG_SECRETS.add(secret);
    const options = {
      level: server.logLevel,
      mixin: lineContext,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      // The last step before a line leaves the process: messages, errors and fields alike.
      hooks: { streamWrite: (line: string) => scrubJsonLine(line, LOG_SECRETS) },
      // Ours as written: pino-http's wrappers expect raw requests, and lines carry plain fields.
      wrapSerializers: false,
      serializers: {
        req: requestSerializer,
        res: responseSerializer,
        err: (error: Error) => {
          const serialized = stdSerializers.err(error);
          serialized.message = scrubSecrets(serialized.message);
          serialized.stack = scrubSecrets(serialized.stack);
          return serialized;
        },
      },
    };
    return {
      module: LoggingModule,
      imports: [
        LoggerModule.forRoot({
          pinoHttp: destination ? [options, destination] : options,
          // No per-request middleware: RequestEntryMiddleware scopes requests (see above).
          forRoutes: [],
        }),
      ],
      exports: [LoggerModule],
    };
  }
}
