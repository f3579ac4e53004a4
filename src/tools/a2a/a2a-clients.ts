import { createHash } from 'node:crypto';
import type { Client } from '@a2a-js/sdk/client';
import { LazyModule } from '../../platform/lazy/lazy-module.js';

/** The SDK's client, imported with the first call of a remote agent. */
const sdk = new LazyModule('@a2a-js/sdk/client', () => import('@a2a-js/sdk/client'));

/** Clients (their cards) kept per replica, least recently made first out. */
const MAX_CLIENTS = 256;
/** A card is fetched again after this long (an agent may move or change its interfaces). */
const CARD_TTL_MS = 5 * 60_000;

/** The card's base URL: given a card URL, that; given a base, with the slash it needs. */
function cardLocation(url: string): [string, string | undefined] {
  if (url.endsWith('.json')) return [url, ''];
  return [url.endsWith('/') ? url : `${url}/`, undefined];
}

/** A remote agent and how the gateway calls it. */
export interface AgentTarget {
  url: string;
  /** The registration's headers (credentials), sent with every request, the card's too. */
  headers?: { [name: string]: string };
}

/**
 * The official SDK clients of remote A2A agents, each made from its agent's card and kept for
 * a while. A client is kept per URL and headers: two registrations of one agent with different
 * credentials never share one. Every request goes through `fetchImpl` (the tenant egress).
 * The SDK's client is imported with the first call of a remote agent.
 */
export class A2AClients {
  private readonly clients = new Map<string, { client: Promise<Client>; at: number }>();

  constructor(private readonly fetchImpl: typeof fetch) {}

  get(target: AgentTarget): Promise<Client> {
    const key = clientKey(target);
    const now = Date.now();
    const cached = this.clients.get(key);
    if (cached && now - cached.at < CARD_TTL_MS) return cached.client;
    if (this.clients.size >= MAX_CLIENTS) {
      this.clients.delete(this.clients.keys().next().value as string);
    }
    const client = this.create(target);
    client.catch(() => this.forget(target));
    this.clients.set(key, { client, at: now });
    return client;
  }

  private async create(target: AgentTarget): Promise<Client> {
    const {
      ClientFactory,
      DefaultAgentCardResolver,
      JsonRpcTransportFactory,
      RestTransportFactory,
    } = await sdk.load();
    const fetchImpl = withHeaders(this.fetchImpl, target.headers ?? {});
    const factory = new ClientFactory({
      transports: [
        new JsonRpcTransportFactory({ fetchImpl }),
        new RestTransportFactory({ fetchImpl }),
      ],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
    });
    return factory.createFromUrl(...cardLocation(target.url));
  }

  /** Drops the agent's client: the next call reads its card again. */
  forget(target: AgentTarget): void {
    this.clients.delete(clientKey(target));
  }
}

/** The cache key of a target: its URL and a digest of its headers (never the values). */
function clientKey(target: AgentTarget): string {
  const headers = Object.entries(target.headers ?? {}).sort(([a], [b]) => a.localeCompare(b));
  const digest = createHash('sha256').update(JSON.stringify(headers)).digest('base64url');
  return `${digest} ${target.url}`;
}

/** `fetchImpl` with the registration's headers on every request (the client's own win). */
function withHeaders(fetchImpl: typeof fetch, headers: { [name: string]: string }): typeof fetch {
  if (Object.keys(headers).length === 0) return fetchImpl;
  return (input, init) => {
    const merged = new Headers(headers);
    new Headers(init?.headers).forEach((value, name) => merged.set(name, value));
    return fetchImpl(input, { ...init, headers: merged });
  };
}
