// The gateway's HTTP API with the key the user typed: Authorization on every call, no cookies,
// no cache. Answers are read as JSON; a problem body becomes one line of text.

/** A problem+json body (or anything else) as one line. */
export function problemText(status, body) {
  const detail = body && typeof body === 'object' ? body.detail || body.title : undefined;
  return `${status}${detail ? `: ${detail}` : ''}`;
}

/** A response's JSON body, or null. */
export async function readJson(response) {
  try {
    return await response.json();
  } catch {
    return null;
  }
}

/** `key()` answers the key to send now (empty: none). */
export function createApi(key) {
  function request(method, path, { body, accept = 'application/json', headers = {}, signal } = {}) {
    const auth = key() ? { Authorization: `Bearer ${key()}` } : {};
    return fetch(path, {
      method,
      headers: {
        Accept: accept,
        ...auth,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store',
      credentials: 'omit',
      signal,
    });
  }

  /** A JSON call: `{ok, status, body}`; a network failure throws. */
  async function call(method, path, body, options = {}) {
    const response = await request(method, path, { ...options, body });
    return { ok: response.ok, status: response.status, body: await readJson(response) };
  }

  return { request, call, get: (path, options) => call('GET', path, undefined, options) };
}

/** `?tenant_id=…` (and more) for a query string. */
export function query(params) {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== '') search.set(name, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}
