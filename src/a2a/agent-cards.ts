import type { AgentCard, AgentSkill } from '@a2a-js/sdk';
import { PACKAGE } from '../platform/config/package-info.js';

/** The A2A revision served (the SDK's JSON-RPC binding). */
export const A2A_VERSION = '1.0';
/** The revision before it, still spoken by many agents. */
export const A2A_LEGACY_VERSION = '0.3';

/** What one card says of the agent behind it. */
export interface CardSubject {
  /** Where the gateway was reached (`http://host:port`). */
  baseUrl: string;
  agent: string;
  /** Empty for the gateway's own card, which names no tenant. */
  tenantId: string;
  description: string;
  skills: AgentSkill[];
  /** Whether tasks take push configurations (the gateway can sign webhooks). */
  pushNotifications: boolean;
}

/** A skill per tool the agent may call: a caller sees what the agent can do. */
export function toolSkill(tool: { name: string; description: string }): AgentSkill {
  return {
    id: tool.name,
    name: tool.name,
    description: tool.description || tool.name,
    tags: ['tool'],
    examples: [],
    inputModes: ['text/plain'],
    outputModes: ['text/plain'],
    securityRequirements: [],
  };
}

/**
 * An agent card: the JSON-RPC binding at `/a2a/{agent}` and the HTTP+JSON one at
 * `/a2a/{agent}/rest`, both carrying the tenant (SDK clients then send it with every request),
 * each also for v0.3 clients (the SDK's compatibility layer); streaming, push notifications when
 * the gateway can sign them, and the gateway's API keys as the security schemes, either of which
 * will do (CONTRACT 2): `Authorization: Bearer <key>` or `X-API-Key: <key>`.
 */
export function agentCard(subject: CardSubject): AgentCard {
  return {
    name: subject.agent,
    description: subject.description,
    supportedInterfaces: [
      {
        url: `${subject.baseUrl}/a2a/${encodeURIComponent(subject.agent)}`,
        protocolBinding: 'JSONRPC',
        tenant: subject.tenantId,
        protocolVersion: A2A_VERSION,
      },
      {
        url: `${subject.baseUrl}/a2a/${encodeURIComponent(subject.agent)}/rest`,
        protocolBinding: 'HTTP+JSON',
        tenant: subject.tenantId,
        protocolVersion: A2A_VERSION,
      },
      // v0.3 clients (method names like `message/send`, `/v1/message:send`), through the
      // SDK's compatibility layer; a v0.3 card names the first as its `url`.
      {
        url: `${subject.baseUrl}/a2a/${encodeURIComponent(subject.agent)}`,
        protocolBinding: 'JSONRPC',
        tenant: subject.tenantId,
        protocolVersion: A2A_LEGACY_VERSION,
      },
      {
        url: `${subject.baseUrl}/a2a/${encodeURIComponent(subject.agent)}/rest`,
        protocolBinding: 'HTTP+JSON',
        tenant: subject.tenantId,
        protocolVersion: A2A_LEGACY_VERSION,
      },
    ],
    provider: { url: subject.baseUrl, organization: PACKAGE.name },
    version: PACKAGE.version,
    capabilities: {
      streaming: true,
      pushNotifications: subject.pushNotifications,
      extensions: [],
      extendedAgentCard: false,
    },
    securitySchemes: {
      bearer: {
        scheme: {
          $case: 'httpAuthSecurityScheme',
          value: {
            scheme: 'Bearer',
            bearerFormat: 'svc-gateway API key',
            description: 'The gateway API key as a bearer token',
          },
        },
      },
      apiKey: {
        scheme: {
          $case: 'apiKeySecurityScheme',
          value: {
            location: 'header',
            name: 'X-API-Key',
            description: 'The gateway API key in the X-API-Key header',
          },
        },
      },
    },
    // Either scheme: each requirement alone is enough.
    securityRequirements: [
      { schemes: { bearer: { list: [] } } },
      { schemes: { apiKey: { list: [] } } },
    ],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: subject.skills,
    signatures: [],
  };
}
