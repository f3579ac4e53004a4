/** Upstream MCP servers one toolset may hold: each is a connection per replica that uses it. */
export const MAX_UPSTREAMS_PER_TOOLSET = 8;
/** Headers one upstream registration may carry, and the size of each value. */
export const MAX_UPSTREAM_HEADERS = 16;
export const MAX_UPSTREAM_HEADER_VALUE = 4096;
/** An HTTP header name (RFC 9110 token), short enough to stay a name. */
export const HEADER_NAME_PATTERN = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/;
/**
 * Headers the MCP transport or HTTP itself sets: a tenant's value would break the exchange or
 * impersonate the gateway's own protocol state.
 */
export const RESERVED_HEADERS = new Set([
  'accept',
  'connection',
  'content-length',
  'content-type',
  'host',
  'keep-alive',
  'last-event-id',
  'mcp-method',
  'mcp-name',
  'mcp-protocol-version',
  'mcp-session-id',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  // The gateway's own mark of its calls (DeploymentMark).
  'x-svc-lineage',
]);

/** Tool name prefixes: what tool names are made of, and short enough to leave room for a name. */
export const PREFIX_PATTERN = /^[A-Za-z0-9_.-]{0,32}$/;
export const PREFIX_MESSAGE = 'prefix must be at most 32 letters, digits, "_", "." or "-"';
/** Upstream tool names (SEP-986): 1 to 128 of these characters. */
export const UPSTREAM_TOOL_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,128}$/;

/** One HTTP response of an upstream (a JSON answer or one POST's event stream). */
export const MAX_UPSTREAM_RESPONSE_BYTES = 4 * 1024 * 1024;
/** Live client connections per replica, over all tenants; the least recently used close first. */
export const MAX_UPSTREAM_CONNECTIONS = 256;
/** A connection unused this long is closed (the next call connects again). */
export const UPSTREAM_IDLE_MS = 5 * 60_000;
/**
 * Tools kept of one upstream's list, and the pages read to get them: a toolset offers at most
 * 128, so a server listing thousands only costs memory.
 */
export const MAX_UPSTREAM_TOOLS_LISTED = 1024;
export const MAX_UPSTREAM_LIST_PAGES = 16;
/** Upstream listings kept per replica, and their JSON together. */
export const MAX_UPSTREAM_LISTINGS = 1024;
export const MAX_UPSTREAM_LISTING_BYTES = 32 * 1024 * 1024;
/** How long a failed listing is believed before it is tried again (at most the listing TTL). */
export const UPSTREAM_FAILURE_TTL_MS = 10_000;
