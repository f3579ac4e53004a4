import type { ResolvedUpstream } from './upstream-catalog.js';
import type { StoredUpstream } from './upstream.types.js';

/** A registered upstream as responses show it: header names, never their values. */
export function upstreamBody(name: string, upstream: StoredUpstream) {
  return {
    name,
    url: upstream.url,
    header_names: Object.keys(upstream.headers).sort(),
    tools: upstream.tools,
    prefix: upstream.prefix,
  };
}

/** What an upstream offers now: the names its tools have in the toolset, or why none. */
export function upstreamStateBody(upstream: ResolvedUpstream) {
  return {
    status: upstream.status,
    ...(upstream.detail !== undefined && { detail: upstream.detail }),
    exposed: upstream.tools.map((tool) => tool.name),
    omitted: upstream.omitted,
  };
}
