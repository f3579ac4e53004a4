import type { NamedSchema } from '../../platform/openapi/response-schema.js';

const string = { type: 'string' };
const time = { type: 'string', format: 'date-time' };
const primitive = { type: ['string', 'number', 'boolean'] };

/** The JSON Schema of `RunSpans` (run-spans.ts), the answer of GET /v1/runs/{id}/spans. */
export const RUN_SPANS_SCHEMA: NamedSchema = {
  name: 'RunSpans',
  schema: {
    type: 'object',
    required: ['run_id', 'tenant_id', 'trace_id', 'kept', 'destination', 'spans'],
    properties: {
      run_id: string,
      tenant_id: string,
      trace_id: { type: ['string', 'null'] },
      kept: {
        type: 'boolean',
        description: 'Whether this replica keeps spans in memory (no collector configured).',
      },
      destination: { enum: ['memory', 'collector', 'off'] },
      spans: {
        type: 'array',
        description: "The run's spans this replica kept, by start time.",
        items: {
          type: 'object',
          required: [
            'trace_id',
            'span_id',
            'parent_span_id',
            'name',
            'kind',
            'started_at',
            'ended_at',
            'duration_ms',
            'status',
            'attributes',
          ],
          properties: {
            trace_id: string,
            span_id: string,
            parent_span_id: { type: ['string', 'null'] },
            name: string,
            kind: { enum: ['internal', 'server', 'client', 'producer', 'consumer'] },
            started_at: time,
            ended_at: time,
            duration_ms: { type: 'number', minimum: 0 },
            status: { enum: ['unset', 'ok', 'error'] },
            attributes: {
              type: 'object',
              additionalProperties: { anyOf: [primitive, { type: 'array', items: primitive }] },
            },
          },
        },
      },
    },
  },
};
