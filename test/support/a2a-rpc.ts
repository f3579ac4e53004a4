import request from 'supertest';

/** What a raw A2A JSON-RPC call answered: the HTTP status and the JSON-RPC body. */
export interface RpcAnswer {
  status: number;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

/**
 * One A2A v1.0 JSON-RPC call made by hand (what a client without the SDK sends), for the
 * answers an SDK client would not let a test see: codes, HTTP statuses, malformed input.
 */
export async function rpc(
  gatewayUrl: string,
  agent: string,
  headers: Record<string, string>,
  method: string,
  params: Record<string, unknown>,
): Promise<RpcAnswer> {
  const res = await request(gatewayUrl)
    .post(`/a2a/${agent}`)
    .set({ 'A2A-Version': '1.0', ...headers })
    .send({ jsonrpc: '2.0', id: 1, method, params });
  const body = res.body as { result?: Record<string, unknown>; error?: RpcAnswer['error'] };
  return { status: res.status, result: body.result, error: body.error };
}

/** A v1.0 user message in the protocol's JSON, with data parts when given. */
export function jsonMessage(
  text: string,
  extra: { messageId?: string; taskId?: string; contextId?: string; data?: object } = {},
) {
  const { data, ...ids } = extra;
  return {
    messageId: ids.messageId ?? `m-${Math.random().toString(36).slice(2)}`,
    role: 'ROLE_USER',
    parts: [{ text }, ...(data ? [{ data }] : [])],
    ...(ids.taskId && { taskId: ids.taskId }),
    ...(ids.contextId && { contextId: ids.contextId }),
  };
}
