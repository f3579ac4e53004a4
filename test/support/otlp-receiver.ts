import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

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

interface ExportRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: Array<{ scope?: { name?: string }; spans?: OtlpSpan[] }>;
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

/**
 * A stand-in OTLP/HTTP collector: records every `POST /v1/traces` (OTLP/JSON, which the HTTP
 * exporter sends) and answers 200 like a collector does.
 */
export class OtlpReceiver {
  readonly requests: Array<{ path: string; contentType?: string; body: ExportRequest }> = [];
  private server?: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        this.requests.push({
          path: req.url ?? '',
          contentType: req.headers['content-type'],
          body: JSON.parse(text || '{}') as ExportRequest,
        });
        res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    this.url = `http://127.0.0.1:${port}`;
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

  close(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
