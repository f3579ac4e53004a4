import { DynamicModule, Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { type DestinationStream, stdSerializers } from 'pino';
import type { IncomingMessage } from 'node:http';
import type { ServerConfig } from '../config/gateway-config.js';
import { logTraceFields } from '../telemetry/log-trace-fields.js';
import { assignRequestId } from './request-id.js';
import { LOG_SECRETS, scrubJsonLine, scrubSecrets } from './scrub-secrets.js';

/** Probes are polled every few seconds; logging each one would drown everything else. */
const QUIET_PATHS = new Set(['/healthz', '/readyz', '/health']);

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
 * Structured JSON logs (pino) with the request id on every line of a request, and the trace and
 * span ids of the active span. nestjs-pino keeps
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
      genReqId: assignRequestId,
      // The active span's trace_id and span_id on every line (see TelemetryModule).
      mixin: logTraceFields,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      // The last step before a line leaves the process: messages, errors and fields alike.
      hooks: { streamWrite: (line: string) => scrubJsonLine(line, LOG_SECRETS) },
      autoLogging: {
        ignore: (req: IncomingMessage) => QUIET_PATHS.has((req.url ?? '').split('?')[0]),
      },
      serializers: {
        req: (req: { id: unknown; method: string; url: string; remoteAddress?: string }) => ({
          id: req.id,
          method: req.method,
          path: req.url.split('?')[0],
          remote: req.remoteAddress,
        }),
        res: (res: { statusCode: number }) => ({ status: res.statusCode }),
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
      imports: [LoggerModule.forRoot({ pinoHttp: destination ? [options, destination] : options })],
      exports: [LoggerModule],
    };
  }
}
