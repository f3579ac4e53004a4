import type { NamedSchema } from '../../platform/openapi/response-schema.js';

const nullable = (type: string) => ({ type: [type, 'null'] });

/**
 * The JSON Schema of `RunRecord` (run-record.ts), the answer of POST /v1/agent/run and of the
 * /v1/runs routes, for the API description. Kept beside the interface it describes; the OpenAPI
 * e2e test checks real answers against it. `graph` (a graph run's step states) is left open.
 */
export const RUN_RECORD_SCHEMA: NamedSchema = {
  name: 'RunRecord',
  schema: {
    type: 'object',
    required: [
      'run_id',
      'session_id',
      'tenant_id',
      'agent',
      'status',
      'text',
      'finish_reason',
      'turns',
      'tool_calls',
      'messages',
      'trace_id',
      'started_at',
      'ended_at',
    ],
    properties: {
      run_id: { type: 'string' },
      session_id: { type: 'string' },
      tenant_id: { type: 'string' },
      agent: { type: 'string' },
      status: {
        enum: ['queued', 'running', 'completed', 'failed', 'paused', 'denied', 'cancelled'],
      },
      text: { type: 'string', description: "The agent's answer (empty until it has one)." },
      finish_reason: { enum: ['stop', 'max_turns', 'length', 'error', null] },
      turns: { type: 'integer', minimum: 0 },
      tool_calls: { type: 'integer', minimum: 0 },
      usage: {
        type: 'object',
        description: 'Tokens the model calls used, as the provider reported them.',
        required: ['prompt_tokens', 'completion_tokens', 'total_tokens'],
        properties: {
          prompt_tokens: { type: 'integer', minimum: 0 },
          completion_tokens: { type: 'integer', minimum: 0 },
          total_tokens: { type: 'integer', minimum: 0 },
        },
      },
      messages: {
        type: 'array',
        description: 'The messages this run added to its session.',
        items: {
          type: 'object',
          required: ['role', 'content'],
          properties: {
            role: { enum: ['system', 'user', 'assistant', 'tool'] },
            content: { type: 'string' },
            tool_calls: { type: 'array', items: { type: 'object' } },
            tool_call_id: { type: 'string' },
            name: { type: 'string' },
          },
        },
      },
      trace_id: nullable('string'),
      metadata: { type: 'object', description: 'As given in the request.' },
      error: {
        type: 'object',
        description: 'Why a failed run failed: the problem its caller received.',
        required: ['status', 'type', 'detail'],
        properties: {
          status: { type: 'integer' },
          type: { type: 'string' },
          detail: { type: 'string' },
        },
      },
      started_at: { type: 'string', format: 'date-time' },
      ended_at: { type: ['string', 'null'], format: 'date-time' },
      paused: { type: 'boolean', description: 'Graph runs: true while a node waits for approval.' },
      pending_node: { ...nullable('string'), description: 'Graph runs: the node waiting.' },
      graph: { type: 'object', description: "Graph runs: every step's state." },
    },
  },
};
