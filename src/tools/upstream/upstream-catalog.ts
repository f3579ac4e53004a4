import { Injectable } from '@nestjs/common';
import { type ExposedTool, type OmittedTool, exposeTools } from './upstream-names.js';
import { UpstreamToolLists } from './upstream-tool-lists.js';
import type { StoredUpstream, StoredUpstreams, UpstreamTarget } from './upstream.types.js';

/** One registered upstream of a toolset as resolved now: what it offers, or why nothing. */
export interface ResolvedUpstream {
  name: string;
  /** `unavailable`: it could not be listed (unreachable, refused, timed out); `detail` says. */
  status: 'ok' | 'unavailable';
  detail?: string;
  prefix: string;
  tools: ExposedTool[];
  omitted: OmittedTool[];
  /** Identifies the listing the tools came from; null while unavailable. */
  stamp: string | null;
  /** How to reach it (holds the header values: never put it in a response). */
  target: UpstreamTarget;
  /** As registered (holds the header values too: see upstreamBody). */
  registration: StoredUpstream;
}

/**
 * The upstream part of a toolset: every registered upstream's cached listing (fetched in
 * parallel), exposed under the toolset's names in upstream name order, so the earlier upstream
 * keeps a name two of them would offer. `taken` holds the names already used (built-ins, HTTP
 * tools); `room` is how many tools the toolset can still offer.
 */
@Injectable()
export class UpstreamCatalog {
  constructor(private readonly lists: UpstreamToolLists) {}

  async resolve(
    tenantId: string,
    toolset: string,
    upstreams: StoredUpstreams,
    taken: Set<string>,
    room: number,
  ): Promise<ResolvedUpstream[]> {
    const names = Object.keys(upstreams).sort();
    const targets = names.map((name): UpstreamTarget => ({
      tenantId,
      toolset,
      name,
      url: upstreams[name].url,
      headers: upstreams[name].headers,
    }));
    const listings = await Promise.all(targets.map((target) => this.lists.list(target)));
    let left = room;
    return targets.map((target, index): ResolvedUpstream => {
      const registration = upstreams[target.name];
      const { prefix, tools: allow } = registration;
      const listing = listings[index];
      if (!listing.ok) {
        const { name } = target;
        const base = { name, prefix, tools: [], omitted: [], stamp: null, target, registration };
        return { ...base, status: 'unavailable', detail: listing.error };
      }
      const { exposed, omitted } = exposeTools(listing.tools, { prefix, allow }, taken, left);
      left -= exposed.length;
      return {
        name: target.name,
        status: 'ok',
        prefix,
        tools: exposed,
        omitted,
        stamp: listing.stamp,
        target,
        registration,
      };
    });
  }
}
