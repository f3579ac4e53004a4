/**
 * An upstream MCP server a tenant registered in one of its toolsets, as stored in the toolset's
 * state entry. `headers` holds secrets: it is sent to the server and never shown back or logged.
 */
export interface StoredUpstream {
  /** The server's Streamable HTTP endpoint. */
  url: string;
  /** Sent on every request to the server (credentials, usually). */
  headers: { [name: string]: string };
  /** The upstream tool names to expose; null exposes them all. */
  tools: string[] | null;
  /** Put in front of every upstream tool name; `{name}_` unless the tenant chose another. */
  prefix: string;
}

export type StoredUpstreams = { [name: string]: StoredUpstream };

/** One registered upstream as the client side needs it: whose it is and how to reach it. */
export interface UpstreamTarget {
  tenantId: string;
  toolset: string;
  /** The upstream's registered name. */
  name: string;
  url: string;
  headers: { [name: string]: string };
}

/** Where an upstream tool of the catalog runs: its upstream, and its own name there. */
export interface UpstreamToolRef {
  upstream: string;
  tool: string;
  /** Changes whenever the upstream's listing does (keys compiled argument validators). */
  stamp: string;
}
