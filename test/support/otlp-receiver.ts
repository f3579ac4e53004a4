import { type IncomingHttpHeaders, type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { first, messages, wireFields } from './protobuf-wire.js';

/** An OTLP/JSON attribute value (https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding). */
interface AnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
}

interface KeyValue {
  key: string;
  value: AnyValue;
}

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: KeyValue[];
  status?: { code?: number };
  links?: Array<{ traceId: string; spanId: string }>;
}

/** An OTLP export request in its JSON shape (a protobuf one is decoded into it). */
interface ExportRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: Array<{ scope?: { name?: string }; spans?: OtlpSpan[] }>;
  }>;
  resourceMetrics?: Array<{
    resource?: { attributes?: KeyValue[] };
    scopeMetrics?: Array<{ metrics?: Array<{ name: string }> }>;
  }>;
}

/** A span as the collector received it, with attributes decoded to plain values. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, unknown>;
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  statusCode: number;
  links: Array<{ traceId: string; spanId: string }>;
  resource: Record<string, unknown>;
  scope?: string;
}

/** One export as it arrived. */
export interface ReceivedExport {
  path: string;
  headers: IncomingHttpHeaders;
  contentType?: string;
  /** Bytes on the wire (before gunzip). */
  size: number;
  body: ExportRequest;
}

function decode(value: AnyValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(decode);
  return undefined;
}

function attributes(list: KeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, decode(value)]));
}

// --- OTLP protobuf (opentelemetry/proto: common, resource, trace, metrics) into the JSON shape ---

const text = (bytes: Buffer | bigint | undefined) =>
  Buffer.isBuffer(bytes) ? bytes.toString() : '';
const hex = (bytes: Buffer | bigint | undefined) =>
  Buffer.isBuffer(bytes) ? bytes.toString('hex') : '';
const int = (value: Buffer | bigint | undefined) => (typeof value === 'bigint' ? value : 0n);

function anyValueOf(bytes: Buffer): AnyValue {
  const [field] = wireFields(bytes);
  if (!field) return {};
  const { number, value } = field;
  if (number === 1) return { stringValue: text(value) };
  if (number === 2) return { boolValue: int(value) !== 0n };
  if (number === 3) return { intValue: String(BigInt.asIntN(64, int(value))) };
  if (number === 4 && Buffer.isBuffer(value)) return { doubleValue: value.readDoubleLE(0) };
  if (number === 5 && Buffer.isBuffer(value)) {
    return { arrayValue: { values: messages(value, 1).map(anyValueOf) } };
  }
  return {};
}

function keyValuesOf(bytes: Buffer, number: number): KeyValue[] {
  return messages(bytes, number).map((kv) => ({
    key: text(first(kv, 1)),
    value: anyValueOf((first(kv, 2) as Buffer | undefined) ?? Buffer.alloc(0)),
  }));
}

function resourceOf(bytes: Buffer): { attributes: KeyValue[] } {
  const resource = first(bytes, 1);
  return { attributes: Buffer.isBuffer(resource) ? keyValuesOf(resource, 1) : [] };
}

function spanOf(bytes: Buffer): OtlpSpan {
  const status = first(bytes, 15);
  return {
    traceId: hex(first(bytes, 1)),
    spanId: hex(first(bytes, 2)),
    parentSpanId: hex(first(bytes, 4)) || undefined,
    name: text(first(bytes, 5)),
    kind: Number(int(first(bytes, 6))),
    attributes: keyValuesOf(bytes, 9),
    status: { code: Buffer.isBuffer(status) ? Number(int(first(status, 3))) : 0 },
    links: messages(bytes, 13).map((link) => ({
      traceId: hex(first(link, 1)),
      spanId: hex(first(link, 2)),
    })),
  };
}

function traceRequestOf(bytes: Buffer): ExportRequest {
  return {
    resourceSpans: messages(bytes, 1).map((resourceSpans) => ({
      resource: resourceOf(resourceSpans),
      scopeSpans: messages(resourceSpans, 2).map((scopeSpans) => {
        const scope = first(scopeSpans, 1);
        return {
          scope: { name: Buffer.isBuffer(scope) ? text(first(scope, 1)) : undefined },
          spans: messages(scopeSpans, 2).map(spanOf),
        };
      }),
    })),
  };
}

function metricsRequestOf(bytes: Buffer): ExportRequest {
  return {
    resourceMetrics: messages(bytes, 1).map((resourceMetrics) => ({
      resource: resourceOf(resourceMetrics),
      scopeMetrics: messages(resourceMetrics, 2).map((scopeMetrics) => ({
        metrics: messages(scopeMetrics, 2).map((metric) => ({ name: text(first(metric, 1)) })),
      })),
    })),
  };
}

/**
 * A stand-in OTLP/HTTP collector: records every export it is sent (any path, OTLP/JSON or
 * OTLP/protobuf, gzip or not, with its headers) and answers 200 like a collector does. A path
 * ending in `metrics` is read as metrics, anything else as traces.
 */
export class OtlpReceiver {
  readonly requests: ReceivedExport[] = [];
  private server?: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const raw = Buffer.concat(chunks);
        const bytes = req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
        const contentType = req.headers['content-type'];
        const path = req.url ?? '';
        const protobuf = contentType?.startsWith('application/x-protobuf') ?? false;
        let body: ExportRequest;
        if (!protobuf) body = JSON.parse(bytes.toString('utf8') || '{}') as ExportRequest;
        else if (path.endsWith('metrics')) body = metricsRequestOf(bytes);
        else body = traceRequestOf(bytes);
        this.requests.push({ path, headers: req.headers, contentType, size: raw.length, body });
        if (protobuf) res.writeHead(200, { 'Content-Type': 'application/x-protobuf' }).end();
        else res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    this.url = `http://127.0.0.1:${port}`;
  }

  /** The exports that carried spans. */
  traceExports(): ReceivedExport[] {
    return this.requests.filter((request) => request.body.resourceSpans !== undefined);
  }

  /** The exports that carried metrics. */
  metricExports(): ReceivedExport[] {
    return this.requests.filter((request) => request.body.resourceMetrics !== undefined);
  }

  /** Every span received so far, in the order received. */
  spans(): ReceivedSpan[] {
    return this.requests.flatMap(({ body }) =>
      (body.resourceSpans ?? []).flatMap((resourceSpans) => {
        const resource = attributes(resourceSpans.resource?.attributes);
        return (resourceSpans.scopeSpans ?? []).flatMap((scopeSpans) =>
          (scopeSpans.spans ?? []).map((span) => ({
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId || undefined,
            name: span.name,
            kind: span.kind,
            attributes: attributes(span.attributes),
            statusCode: span.status?.code ?? 0,
            links: (span.links ?? []).map((link) => ({
              traceId: link.traceId,
              spanId: link.spanId,
            })),
            resource,
            scope: scopeSpans.scope?.name,
          })),
        );
      }),
    );
  }

  /** The spans of one trace. */
  trace(traceId: string): ReceivedSpan[] {
    return this.spans().filter((span) => span.traceId === traceId);
  }

  /** Names of the metrics received so far, with the resource each export carried. */
  metrics(): Array<{ name: string; resource: Record<string, unknown> }> {
    return this.requests.flatMap(({ body }) =>
      (body.resourceMetrics ?? []).flatMap((resourceMetrics) => {
        const resource = attributes(resourceMetrics.resource?.attributes);
        return (resourceMetrics.scopeMetrics ?? []).flatMap((scopeMetrics) =>
          (scopeMetrics.metrics ?? []).map((metric) => ({ name: metric.name, resource })),
        );
      }),
    );
  }

  close(): Promise<void> {
    // Exporters keep their connections alive; close them so the server can stop.
    this.server?.closeAllConnections();
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
