import type { NamedSchema } from '../platform/openapi/response-schema.js';

const string = { type: 'string' };
const count = { type: 'integer', minimum: 0 };
const nullableString = { type: ['string', 'null'] };

/**
 * The JSON Schema of `StudioSnapshot` (studio-records.ts), the answer of GET /v1/studio, for the
 * API description; the OpenAPI e2e test checks a real answer against it.
 */
export const STUDIO_SNAPSHOT_SCHEMA: NamedSchema = {
  name: 'StudioSnapshot',
  schema: {
    type: 'object',
    required: ['sessions', 'loops', 'counts'],
    properties: {
      sessions: {
        type: 'array',
        description: 'Sessions, newest first: each with its latest run that ended here.',
        items: {
          type: 'object',
          required: ['id', 'type', 'tenant_id', 'agent', 'prompt', 'text', 'finish_reason'],
          properties: {
            id: string,
            type: { const: 'session' },
            tenant_id: string,
            agent: string,
            prompt: string,
            text: string,
            finish_reason: string,
            tool_calls: count,
            turns: count,
            run_id: string,
            runs: count,
            updated_at: { type: 'string', format: 'date-time' },
          },
        },
      },
      loops: {
        type: 'array',
        description: "Runs' loops on this replica, newest first.",
        items: {
          type: 'object',
          required: ['id', 'type', 'tenant_id', 'agent', 'session_id', 'run_id', 'status'],
          properties: {
            id: string,
            type: { const: 'loop' },
            tenant_id: string,
            agent: string,
            session_id: string,
            run_id: string,
            status: {
              enum: ['queued', 'running', 'completed', 'failed', 'paused', 'denied', 'cancelled'],
            },
            started_at: { type: 'string', format: 'date-time' },
            ended_at: { type: ['string', 'null'], format: 'date-time' },
            turns: count,
            tool_calls: count,
            finish_reason: nullableString,
            trace_id: nullableString,
            pending_node: nullableString,
            error: nullableString,
          },
        },
      },
      counts: {
        type: 'object',
        description: 'Totals over every record held, whatever `limit` cut from the lists.',
        required: ['sessions', 'loops', 'running_loops'],
        properties: {
          sessions: count,
          loops: count,
          running_loops: count,
          paused_loops: count,
          completed_loops: count,
          failed_loops: count,
          denied_loops: count,
        },
      },
    },
  },
};
