import { createHash } from 'node:crypto';
import { BoundedCache } from '../bounded-cache.js';
import type { UpstreamTool } from './upstream-names.js';

/** What the gateway knows of one upstream's tools: its list, or why there is none. */
export type Listing =
  | { ok: true; tools: UpstreamTool[]; stamp: string; at: number }
  | { ok: false; error: string; at: number };

export interface ListingCacheOptions {
  /** A list is served this long; after that it is served while a fresh one is fetched. */
  ttlMs: number;
  /** A failure is believed this long; after that the next read tries again (and waits). */
  failureTtlMs: number;
  capacity: number;
  maxBytes: number;
  now?: () => number;
}

interface Entry {
  listing: Listing;
  /** The fetch under way for this key, shared by everyone who asks meanwhile. */
  pending?: Promise<Listing>;
  /** Bumped by `replace`, so a fetch that started before a change cannot overwrite it. */
  generation: number;
  /** When the last fetch ended (a failed refresh keeps the list but not this). */
  triedAt: number;
}

/** Changes whenever the list does: compiled argument validators are keyed by it. */
function stampOf(tools: UpstreamTool[]): string {
  return createHash('sha256').update(JSON.stringify(tools)).digest('base64url').slice(0, 16);
}

/**
 * Upstream tool lists per registration key (see upstreamKey): a fresh list is served as is; a
 * stale one is served while one fetch refreshes it in the background (a slow upstream never
 * slows the toolset once listed); a missing or failed one is fetched and waited for, with
 * concurrent readers sharing the fetch. A failure is kept for `failureTtlMs` so an unreachable
 * upstream is not asked again on every read. `replace` takes a list the upstream pushed
 * (`notifications/tools/list_changed`). Bounded in entries and in the lists' JSON size.
 */
export class ListingCache {
  private readonly entries: BoundedCache<string, Entry>;
  private readonly now: () => number;

  constructor(private readonly options: ListingCacheOptions) {
    this.entries = new BoundedCache(options.capacity, options.maxBytes);
    this.now = options.now ?? Date.now;
  }

  async get(
    key: string,
    fetch: () => Promise<UpstreamTool[]>,
    describe: (error: unknown) => string,
  ): Promise<Listing> {
    const entry = this.entries.get(key);
    if (entry) {
      const age = this.now() - entry.listing.at;
      if (entry.listing.ok) {
        const retry = this.now() - entry.triedAt >= this.options.failureTtlMs;
        if (age >= this.options.ttlMs && retry) void this.refresh(key, entry, fetch, describe);
        return entry.listing;
      }
      // Nothing to serve while the first fetch (or a retry) is under way: wait for it.
      if (entry.pending) return entry.pending;
      if (age < this.options.failureTtlMs) return entry.listing;
      return this.refresh(key, entry, fetch, describe);
    }
    const created: Entry = {
      listing: { ok: false, error: 'not listed yet', at: 0 },
      generation: 0,
      triedAt: 0,
    };
    return this.refresh(key, created, fetch, describe);
  }

  /** A list the upstream announced; it replaces whatever is cached or being fetched. */
  replace(key: string, tools: UpstreamTool[]): void {
    const entry = this.entries.get(key);
    const generation = (entry?.generation ?? 0) + 1;
    this.store(key, { listing: this.listed(tools), generation, triedAt: this.now() });
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  private refresh(
    key: string,
    entry: Entry,
    fetch: () => Promise<UpstreamTool[]>,
    describe: (error: unknown) => string,
  ): Promise<Listing> {
    if (entry.pending) return entry.pending;
    const generation = entry.generation;
    entry.pending = fetch().then(
      (tools) => this.listed(tools),
      (error: unknown): Listing => ({ ok: false, error: describe(error), at: this.now() }),
    );
    if (!this.entries.get(key)) this.store(key, entry);
    return entry.pending.then((listing) => {
      const current = this.entries.get(key);
      if (current === entry) entry.pending = undefined;
      // A list pushed meanwhile is newer than what this fetch saw.
      if (current && current.generation !== generation) return current.listing;
      // A working list is kept over a failed refresh until it expires twice over.
      const keep =
        !listing.ok && entry.listing.ok && this.now() - entry.listing.at < 2 * this.options.ttlMs;
      const kept = keep ? entry.listing : listing;
      this.store(key, { listing: kept, generation, triedAt: this.now() });
      return kept;
    });
  }

  private listed(tools: UpstreamTool[]): Listing {
    return { ok: true, tools, stamp: stampOf(tools), at: this.now() };
  }

  private store(key: string, entry: Entry): void {
    const weight = entry.listing.ok ? Buffer.byteLength(JSON.stringify(entry.listing.tools)) : 64;
    this.entries.set(key, entry, weight);
  }
}
