/**
 * The requests the HTTP benchmarks send, with the one API key of this run. The baseline server
 * gets the same method, path, headers and body as the gateway.
 */
import { randomBytes } from 'node:crypto';

export const TENANT = 'bench';
export const API_KEY = `bench-${randomBytes(12).toString('hex')}`;

const AUTH = { authorization: `Bearer ${API_KEY}` };
const JSON_AUTH = { ...AUTH, 'content-type': 'application/json' };

/** Full pipeline (logging, auth guard, rate-limit guard, JSON reply), no database. */
export const INFO = { method: 'GET', path: '/info', headers: AUTH };

/** One built-in tool call: body validation, toolset lookup (one state read), schema check. */
export const TOOL_CALL = {
  method: 'POST',
  path: '/v1/tools/default/echo',
  headers: JSON_AUTH,
  body: JSON.stringify({ tenant_id: TENANT, arguments: { text: 'hi' } }),
};

/** One agent run with a generated run id and a new session. */
export const AGENT_RUN = {
  method: 'POST',
  path: '/v1/agent/run',
  headers: JSON_AUTH,
  body: JSON.stringify({ tenant_id: TENANT, prompt: 'hello' }),
};

/** The same agent run streamed: its events as text/event-stream until it settles. */
export const STREAMED_RUN = {
  ...AGENT_RUN,
  body: JSON.stringify({ tenant_id: TENANT, prompt: 'hello', stream: true }),
};

/**
 * The same agent run as AGENT_RUN over the OpenAI-compatible wire: the tenant in a header, the
 * prompt as a message, the answer as a `chat.completion`.
 */
export const CHAT_COMPLETION = {
  method: 'POST',
  path: '/v1/chat/completions',
  headers: { ...JSON_AUTH, 'x-tenant-id': TENANT },
  body: JSON.stringify({ model: 'default', messages: [{ role: 'user', content: 'hello' }] }),
};

/**
 * The same agent run as AGENT_RUN over A2A: a JSON-RPC `SendMessage` to the default agent, a new
 * message id (so a new task, not a replay of one) on every request.
 */
export function a2aSendMessage() {
  const prefix = `bench-${randomBytes(4).toString('hex')}`;
  let n = 0;
  const body = (id) =>
    JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: { message: { messageId: id, role: 'ROLE_USER', parts: [{ text: 'hello' }] } },
    });
  return {
    method: 'POST',
    path: '/a2a/default',
    headers: { ...JSON_AUTH, 'x-tenant-id': TENANT, 'a2a-version': '1.0' },
    body: body(`${prefix}-first`),
    setupRequest: (request) => ({ ...request, body: body(`${prefix}-${n++}`) }),
  };
}

/**
 * A chat message to the messaging webhook (a generic event, with the API key), answered when its
 * run settled (`?wait=true`): a new event and a new conversation on every request, so each is
 * accepted, run on a session of its own and its reply delivered, none a duplicate.
 */
export function chatMessage() {
  const prefix = `bench-${randomBytes(4).toString('hex')}`;
  let n = 0;
  const body = (id) =>
    JSON.stringify({
      tenant_id: TENANT,
      channel: 'chata',
      conversation_id: id,
      user: 'bench',
      text: 'hello',
      event_id: id,
    });
  return {
    method: 'POST',
    path: '/v1/messaging/webhook?wait=true',
    headers: JSON_AUTH,
    body: body(`${prefix}-first`),
    setupRequest: (request) => ({ ...request, body: body(`${prefix}-${n++}`) }),
  };
}

/** One agent run with a tool call: two model turns (echo provider) and the calculator. */
export const TOOL_RUN = {
  method: 'POST',
  path: '/v1/agent/run',
  headers: JSON_AUTH,
  body: JSON.stringify({ tenant_id: TENANT, prompt: '/tool calculator {"expression":"1+2"}' }),
};

/**
 * `route` (AGENT_RUN by default) with a caller-chosen `run_id`, a new one for every request (a
 * counter behind a random prefix), so every request pays the idempotency round trips and none is
 * a replay.
 */
export function agentRunWithRunIds(route = AGENT_RUN) {
  const prefix = `bench-${randomBytes(4).toString('hex')}`;
  const body = JSON.parse(route.body);
  let n = 0;
  return {
    ...route,
    setupRequest: (request) => ({
      ...request,
      body: JSON.stringify({ ...body, run_id: `${prefix}-${n++}` }),
    }),
  };
}

/** The autocannon request for `route` against `base` (`http://127.0.0.1:<port>`). */
export function requestFor(base, route) {
  const { path, ...rest } = route;
  return { url: `${base}${path}`, ...rest };
}

/** A three-step pipeline of built-in echo tools, each feeding the next (registered by the bench). */
export const GRAPH_SPEC = {
  tenant_id: TENANT,
  topology: 'pipeline',
  steps: [
    { id: 'a', kind: 'tool', tool: 'echo', arguments: { text: '{{input}}' } },
    { id: 'b', kind: 'tool', tool: 'echo', arguments: { text: '{{steps.a.output}}!' } },
    { id: 'c', kind: 'tool', tool: 'echo', arguments: { text: '{{steps.b.output}}!' } },
  ],
};

/** PUT of GRAPH_SPEC as agent `chain`. */
export const GRAPH_PUT = {
  method: 'PUT',
  path: '/v1/agents/chain',
  headers: JSON_AUTH,
  body: JSON.stringify(GRAPH_SPEC),
};

/** One run of the `chain` graph (a run lease, a record, two checkpoints per step). */
export const GRAPH_RUN = {
  method: 'POST',
  path: '/v1/agent/run',
  headers: JSON_AUTH,
  body: JSON.stringify({ tenant_id: TENANT, agent: 'chain', prompt: 'hello' }),
};
