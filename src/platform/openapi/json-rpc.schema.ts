import type { JsonSchema } from './openapi.types.js';

/**
 * A JSON-RPC 2.0 message, the body of the MCP and A2A JSON-RPC routes. Only the envelope: the
 * methods and their parameters are the protocol's, specified (and versioned) by MCP and A2A.
 */
export const JSON_RPC_MESSAGE: JsonSchema = {
  type: 'object',
  description:
    'A JSON-RPC 2.0 request or notification (a response, for answers to server requests). Methods and parameters are defined by the protocol.',
  required: ['jsonrpc'],
  properties: {
    jsonrpc: { const: '2.0' },
    id: { type: ['string', 'integer'], description: 'Absent in a notification.' },
    method: { type: 'string' },
    params: { type: ['object', 'array'] },
    result: {},
    error: { type: 'object' },
  },
};
