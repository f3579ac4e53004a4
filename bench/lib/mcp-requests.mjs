/**
 * What the MCP bench sends: one tools/call per POST of the built-in `echo`, the headers an MCP
 * client sends after initialize, and the same POST to the baseline and the REST tool route.
 */
import { randomBytes } from 'node:crypto';

export const MCP_API_KEY = `bench-mcp-${randomBytes(12).toString('hex')}`;
export const TENANT = 'bench';
export const PROTOCOL_VERSION = '2025-06-18';

const AUTH = { authorization: `Bearer ${MCP_API_KEY}` };

export const MCP_HEADERS = {
  ...AUTH,
  accept: 'application/json, text/event-stream',
  'content-type': 'application/json',
  'mcp-protocol-version': PROTOCOL_VERSION,
  'x-tenant-id': TENANT,
};

/** The gateway's tools take `text`; server-everything's `echo` (federated or direct) a `message`. */
export const UPSTREAM_ARGUMENTS = { message: 'hi' };

function argumentsOf(tool) {
  return tool === UPSTREAM_TOOL ? UPSTREAM_ARGUMENTS : { text: 'hi' };
}

export function toolCall(id, tool = 'echo', args = argumentsOf(tool)) {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: tool, arguments: args },
  });
}

/** The 2026-07-28 revision: no session, the version and client in each request's `_meta`. */
export const MODERN_VERSION = '2026-07-28';

function modernToolCall(tool) {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      name: tool,
      arguments: argumentsOf(tool),
      _meta: {
        'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
        'io.modelcontextprotocol/clientInfo': { name: 'svc-bench', version: '1.0.0' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  });
}

/** A 2026-07-28 tools/call: stands alone like a stateless one, any replica could answer it. */
export function modernRequest(base, tool = 'echo') {
  return {
    url: `${base}/mcp/`,
    method: 'POST',
    headers: {
      ...MCP_HEADERS,
      'mcp-protocol-version': MODERN_VERSION,
      'mcp-method': 'tools/call',
      'mcp-name': tool,
    },
    body: modernToolCall(tool),
  };
}

/** The HTTP tool the bench registers: its endpoint is the baseline server's `/tool`. */
export const HTTP_TOOL = 'http_echo';

export async function registerHttpTool(base, endpointBase) {
  const response = await fetch(`${base}/v1/toolsets/default/tools/${HTTP_TOOL}`, {
    method: 'PUT',
    headers: { ...AUTH, 'content-type': 'application/json' },
    body: JSON.stringify({
      tenant_id: TENANT,
      description: 'echoes through the baseline server',
      parameters: { type: 'object', properties: { text: { type: 'string' } } },
      endpoint: { url: `${endpointBase}/tool` },
    }),
  });
  if (!response.ok) throw new Error(`registering ${HTTP_TOOL} answered ${response.status}`);
}

export const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: {
    protocolVersion: PROTOCOL_VERSION,
    capabilities: {},
    clientInfo: { name: 'svc-bench', version: '1.0.0' },
  },
});

/** Stateless: the same POST every time (each one stands alone). */
export function statelessRequest(base, tool = 'echo') {
  return { url: `${base}/mcp/`, method: 'POST', headers: MCP_HEADERS, body: toolCall(1, tool) };
}

/**
 * In one session: a fresh JSON-RPC id per request (ids must not repeat while in flight within a
 * session); the answer is an SSE stream, as the SDK sends it by default.
 */
export function sessionRequest(base, sessionId, tool = 'echo', args = argumentsOf(tool)) {
  let id = 1;
  const headers = { ...MCP_HEADERS, 'mcp-session-id': sessionId };
  return {
    url: `${base}/mcp/`,
    method: 'POST',
    headers,
    body: toolCall(0, tool, args),
    setupRequest: (request) => ({ ...request, body: toolCall(id++, tool, args) }),
  };
}

/** The upstream the bench federates: server-everything, registered in toolset `default`. */
export const UPSTREAM = 'everything';
export const UPSTREAM_TOOL = `${UPSTREAM}_echo`;

export async function registerUpstream(base, upstreamUrl) {
  const response = await fetch(`${base}/v1/toolsets/default/upstreams/${UPSTREAM}`, {
    method: 'PUT',
    headers: { ...AUTH, 'content-type': 'application/json' },
    body: JSON.stringify({ tenant_id: TENANT, url: upstreamUrl }),
  });
  if (!response.ok) throw new Error(`registering ${UPSTREAM} answered ${response.status}`);
}

/** The same tool call through REST, for scale. */
export function restRequest(base) {
  return {
    url: `${base}/v1/tools/default/echo`,
    method: 'POST',
    headers: { ...AUTH, 'content-type': 'application/json' },
    body: JSON.stringify({ tenant_id: TENANT, arguments: { text: 'hi' } }),
  };
}

/** The MCP POST against the node:http baseline (it reads and parses the body, answers JSON). */
export const baselineRequest = statelessRequest;
