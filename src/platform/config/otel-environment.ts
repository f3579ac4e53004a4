import { applyDecorators } from '@nestjs/common';
import { IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { OptionalBoolean, OptionalInt, OptionalOneOf, commaList } from './env-decorators.js';
import { IsKeyValueList } from './otel-key-value-list.js';
import { IsHttpUrl } from './url.validators.js';

/** OTLP over HTTP; gRPC export is not built in. */
export const OTLP_PROTOCOLS = ['http/protobuf', 'http/json'] as const;
export const OTLP_COMPRESSIONS = ['gzip', 'none'] as const;
export const TRACES_SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;
export const TRACES_EXPORTERS = ['otlp', 'none'] as const;
export const METRICS_EXPORTERS = ['prometheus', 'otlp', 'none'] as const;
const OTEL_LOG_LEVELS = ['none', 'error', 'warn', 'info', 'debug', 'verbose', 'all'];

const PROTOCOL_MESSAGE =
  'must be http/protobuf or http/json (gRPC export is not built in: point it at the collector’s OTLP/HTTP port, 4318)';
const Protocol = () => OptionalOneOf(OTLP_PROTOCOLS, PROTOCOL_MESSAGE);
const Compression = () => OptionalOneOf(OTLP_COMPRESSIONS);
/** Milliseconds an export may take (the OTLP exporter's timeout). */
const Timeout = () => OptionalInt(1, 600_000);
const Headers = () => applyDecorators(IsOptional(), IsKeyValueList('headers'));

function ExporterList(values: readonly string[]): PropertyDecorator {
  return applyDecorators(
    IsOptional(),
    Matches(commaList(`(${values.join('|')})`), {
      message: `must be a comma-separated list of ${values.join(', ')}`,
    }),
  );
}

/**
 * The standard OpenTelemetry SDK variables the gateway honours
 * (https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/), checked at
 * boot like every other setting. A value the SDK would ignore with a diagnostic (an unknown
 * sampler, a ratio outside 0..1, a malformed header list) stops the start here instead.
 */
export class OtelEnvironment {
  @OptionalBoolean() OTEL_SDK_DISABLED?: boolean;
  @IsOptional() @IsString() @MaxLength(128) OTEL_SERVICE_NAME?: string;
  @IsOptional() @IsKeyValueList('attributes') OTEL_RESOURCE_ATTRIBUTES?: string;
  @IsOptional()
  @Matches(new RegExp(`^(${OTEL_LOG_LEVELS.join('|')})$`, 'i'), {
    message: `must be one of ${OTEL_LOG_LEVELS.join(', ')}`,
  })
  OTEL_LOG_LEVEL?: string;

  // --- which exporters ---
  @ExporterList(TRACES_EXPORTERS) OTEL_TRACES_EXPORTER?: string;
  @ExporterList(METRICS_EXPORTERS) OTEL_METRICS_EXPORTER?: string;

  // --- OTLP exporter: general, then per signal (the specific one wins) ---
  @IsOptional() @IsHttpUrl() OTEL_EXPORTER_OTLP_ENDPOINT?: string;
  @IsOptional() @IsHttpUrl() OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string;
  @IsOptional() @IsHttpUrl() OTEL_EXPORTER_OTLP_METRICS_ENDPOINT?: string;
  @Headers() OTEL_EXPORTER_OTLP_HEADERS?: string;
  @Headers() OTEL_EXPORTER_OTLP_TRACES_HEADERS?: string;
  @Headers() OTEL_EXPORTER_OTLP_METRICS_HEADERS?: string;
  @Protocol() OTEL_EXPORTER_OTLP_PROTOCOL?: (typeof OTLP_PROTOCOLS)[number];
  @Protocol() OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?: (typeof OTLP_PROTOCOLS)[number];
  @Protocol() OTEL_EXPORTER_OTLP_METRICS_PROTOCOL?: (typeof OTLP_PROTOCOLS)[number];
  @Timeout() OTEL_EXPORTER_OTLP_TIMEOUT?: number;
  @Timeout() OTEL_EXPORTER_OTLP_TRACES_TIMEOUT?: number;
  @Timeout() OTEL_EXPORTER_OTLP_METRICS_TIMEOUT?: number;
  @Compression() OTEL_EXPORTER_OTLP_COMPRESSION?: (typeof OTLP_COMPRESSIONS)[number];
  @Compression() OTEL_EXPORTER_OTLP_TRACES_COMPRESSION?: (typeof OTLP_COMPRESSIONS)[number];
  @Compression() OTEL_EXPORTER_OTLP_METRICS_COMPRESSION?: (typeof OTLP_COMPRESSIONS)[number];

  // --- sampling (the argument is checked against the sampler in telemetry-config) ---
  @OptionalOneOf(TRACES_SAMPLERS) OTEL_TRACES_SAMPLER?: (typeof TRACES_SAMPLERS)[number];
  @IsOptional() @IsString() OTEL_TRACES_SAMPLER_ARG?: string;

  // --- the batch span processor ---
  @OptionalInt(0, 3_600_000) OTEL_BSP_SCHEDULE_DELAY?: number;
  @OptionalInt(1, 600_000) OTEL_BSP_EXPORT_TIMEOUT?: number;
  @OptionalInt(1, 1_000_000) OTEL_BSP_MAX_QUEUE_SIZE?: number;
  @OptionalInt(1, 1_000_000) OTEL_BSP_MAX_EXPORT_BATCH_SIZE?: number;

  // --- the periodic metric reader (OTLP metrics) ---
  @OptionalInt(100, 86_400_000) OTEL_METRIC_EXPORT_INTERVAL?: number;
  @OptionalInt(1, 600_000) OTEL_METRIC_EXPORT_TIMEOUT?: number;
}

/** Header lists carry collector credentials: never echoed in an error message or a log line. */
export const OTEL_SECRET_VARIABLES = [
  'OTEL_EXPORTER_OTLP_HEADERS',
  'OTEL_EXPORTER_OTLP_TRACES_HEADERS',
  'OTEL_EXPORTER_OTLP_METRICS_HEADERS',
] as const;
