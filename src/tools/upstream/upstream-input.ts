import type { JsonValue } from '../../platform/state/state-store.js';

type JsonObject = { [key: string]: JsonValue };

/**
 * The client capabilities an upstream's input requests need (2026-07-28 multi round-trip
 * requests: `elicitation/create`, `sampling/createMessage`, `roots/list`).
 */
const ANSWERING_CAPABILITIES = ['elicitation', 'sampling', 'roots'] as const;

/**
 * What the MCP client calling an upstream tool through the gateway can answer, and what it
 * answered on a retried call. Only the MCP host has a client to ask; REST and agent runs call
 * without one, and an upstream that asks them for input gets no capability to ask with.
 */
export interface ClientInput {
  /** The calling client's declared capabilities for input (see answeringCapabilities). */
  capabilities: JsonObject;
  /** The client's answers to the upstream's input requests (`inputResponses`), passed on. */
  responses?: JsonObject;
  /**
   * The upstream's own `requestState`, echoed by the client and passed back verbatim. The
   * gateway does not read it and trusts it no more than the arguments: it only ever reaches
   * the upstream the tool name resolves to, in the caller's own tenant and toolset.
   */
  requestState?: string;
  /**
   * Sends a server→client request to the client on its open call, for an upstream of the 2025
   * revisions, which asks that way; only a 2025-era session can be asked like this.
   */
  ask?: AskClient;
}

/** Asks the client behind a call (`elicitation/create`, …) and resolves with its answer. */
export type AskClient = (
  request: { method: string; params?: unknown },
  signal: AbortSignal,
) => Promise<unknown>;

/** An upstream's answer that it needs input before it can answer (`input_required`). */
export interface InputRequired {
  inputRequests?: JsonObject;
  requestState?: string;
}

/** The input capabilities among a client's declared ones (the rest are not the upstream's). */
export function answeringCapabilities(declared: unknown): JsonObject {
  const picked: JsonObject = {};
  if (declared === null || typeof declared !== 'object') return picked;
  for (const name of ANSWERING_CAPABILITIES) {
    const value = (declared as { [key: string]: unknown })[name];
    // Parsed from JSON by the SDK, so a JSON value.
    if (value !== null && typeof value === 'object') picked[name] = value as JsonValue;
  }
  return picked;
}

/** Whether the client can answer any kind of input request. */
export function canAnswer(input: ClientInput | undefined): input is ClientInput {
  return input !== undefined && Object.keys(input.capabilities).length > 0;
}

/** The tool error a caller without a client gets when an upstream asks for input. */
export function unanswerableInputText(asked: InputRequired): string {
  const kinds = Object.values(asked.inputRequests ?? {})
    .map((request) =>
      request !== null && typeof request === 'object' && !Array.isArray(request)
        ? request.method
        : undefined,
    )
    .filter((method): method is string => typeof method === 'string');
  const what = kinds.length > 0 ? ` (${[...new Set(kinds)].join(', ')})` : '';
  return `upstream MCP server asked for input${what} that only an MCP client declaring it can give; this caller cannot`;
}
