import type { NamedSchema } from '../openapi/response-schema.js';

/** The answers of the probes and /info (CONTRACT section 8), for the API description. */
export const LIVENESS_SCHEMA: NamedSchema = {
  name: 'Liveness',
  schema: {
    type: 'object',
    required: ['status'],
    properties: { status: { const: 'ok' } },
  },
};

export const READINESS_SCHEMA: NamedSchema = {
  name: 'Readiness',
  schema: {
    type: 'object',
    required: ['status', 'backend'],
    properties: {
      status: { enum: ['ready', 'not_ready'] },
      backend: { enum: ['sqlite', 'postgres'] },
      migrations: {
        type: 'object',
        description: 'When ready: how many state migrations are applied (none pending).',
        properties: {
          applied: { type: 'integer', minimum: 0 },
          pending: { type: 'array', items: { type: 'string' } },
        },
      },
      reason: { type: 'string', description: 'When not ready: why.' },
    },
  },
};

export const VERSION_SCHEMA: NamedSchema = {
  name: 'Version',
  schema: {
    type: 'object',
    required: ['version'],
    properties: { version: { type: 'string', description: 'Semantic version of the gateway.' } },
  },
};

export const INFO_SCHEMA: NamedSchema = {
  name: 'Info',
  schema: {
    type: 'object',
    required: ['name', 'version', 'backend', 'provider', 'surfaces'],
    properties: {
      name: { type: 'string' },
      version: { type: 'string' },
      backend: { enum: ['sqlite', 'postgres'] },
      provider: { type: 'string', description: 'The model provider kind: echo, openai or native.' },
      model: { type: ['string', 'null'] },
      default_tenant: { type: ['string', 'null'] },
      surfaces: {
        type: 'object',
        description: 'The HTTP surfaces this build mounts, name → path.',
        additionalProperties: { type: 'string' },
      },
    },
  },
};
