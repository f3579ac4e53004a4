/** Opening an MCP session by hand, and checking that a tools/call answer is a real result. */
import { INITIALIZE, MCP_HEADERS } from './mcp-requests.mjs';

/** The JSON-RPC messages of an answer that is JSON or an SSE stream. */
function messages(contentType, text) {
  if (contentType?.startsWith('text/event-stream')) {
    return (
      text
        .split('\n')
        // A priming event's data is empty.
        .filter((line) => line.startsWith('data: ') && line.length > 6)
        .map((line) => JSON.parse(line.slice(6)))
    );
  }
  return [JSON.parse(text)];
}

/**
 * Sends `request` once and throws unless it is a successful, non-error tool result, so a refused
 * key or a JSON-RPC error (which is also HTTP 200) fails the run instead of being measured.
 */
export async function expectToolResult(name, { url, method, headers, body }) {
  const response = await fetch(url, { method, headers, body });
  const text = await response.text();
  const answer = response.ok ? messages(response.headers.get('content-type'), text).at(-1) : null;
  if (!answer?.result || answer.result.isError) {
    throw new Error(`${name}: ${method} ${url} answered ${response.status}: ${text.slice(0, 300)}`);
  }
}

/** initialize + notifications/initialized; returns the Mcp-Session-Id. */
export async function openSession(base) {
  const init = await fetch(`${base}/mcp/`, {
    method: 'POST',
    headers: MCP_HEADERS,
    body: INITIALIZE,
  });
  await init.text();
  const sessionId = init.headers.get('mcp-session-id');
  if (!init.ok || !sessionId)
    throw new Error(`initialize answered ${init.status} without a session`);
  const headers = { ...MCP_HEADERS, 'mcp-session-id': sessionId };
  const body = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });
  const initialized = await fetch(`${base}/mcp/`, { method: 'POST', headers, body });
  if (initialized.status !== 202) throw new Error(`initialized answered ${initialized.status}`);
  return sessionId;
}
