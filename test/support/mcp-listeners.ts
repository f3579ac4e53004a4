import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';

/** A change notification as a client heard it: its method, and the URI of a resource update. */
export interface Heard {
  method: string;
  uri?: string;
}

export interface Listener {
  heard: Heard[];
  /** Resolves once a notification matching `method` (and `uri`) has been heard. */
  hears(method: string, uri?: string, timeoutMs?: number): Promise<'heard' | 'silent'>;
  close(): Promise<void>;
}

const CHANGE_METHODS = [
  'notifications/tools/list_changed',
  'notifications/prompts/list_changed',
  'notifications/resources/list_changed',
  'notifications/resources/updated',
] as const;

function listener(heard: Heard[], close: () => Promise<void>): Listener {
  return {
    heard,
    close,
    hears: async (method, uri, timeoutMs = 5000) => {
      const deadline = Date.now() + timeoutMs;
      const matches = () =>
        heard.some((h) => h.method === method && (uri === undefined || h.uri === uri));
      while (!matches()) {
        if (Date.now() > deadline) return 'silent';
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return 'heard';
    },
  };
}

/**
 * A v1 SDK client in a 2025-11-25 session that records every change notification it hears on
 * its GET stream; resolves once that stream is open (what it hears before is not its to hear).
 */
export async function legacyListener(
  url: string,
  headers: Record<string, string>,
  subscribe: string[] = [],
): Promise<Listener & { client: Client }> {
  let opened: () => void = () => undefined;
  const streamOpen = new Promise<void>((resolve) => (opened = resolve));
  const watching: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    if (init?.method === 'GET' && response.ok) opened();
    return response;
  };
  const client = new Client({ name: 'listener', version: '1.0.0' });
  const heard: Heard[] = [];
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    heard.push({ method: 'notifications/tools/list_changed' });
  });
  client.setNotificationHandler(PromptListChangedNotificationSchema, () => {
    heard.push({ method: 'notifications/prompts/list_changed' });
  });
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
    heard.push({ method: 'notifications/resources/list_changed' });
  });
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    heard.push({ method: 'notifications/resources/updated', uri: n.params.uri });
  });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers }, fetch: watching }),
  );
  for (const uri of subscribe) await client.subscribeResource({ uri });
  await streamOpen;
  return { ...listener(heard, () => client.close()), client };
}

/**
 * A v2 SDK client on 2026-07-28 with a `subscriptions/listen` stream open for every list
 * change and the resource URIs given, recording what it hears.
 */
export async function modernListener(
  url: string,
  headers: Record<string, string>,
  resourceSubscriptions: string[] = [],
): Promise<Listener & { client: ModernClient }> {
  const client = new ModernClient(
    { name: 'listener', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new ModernTransport(new URL(url), { requestInit: { headers } }));
  const heard: Heard[] = [];
  for (const method of CHANGE_METHODS) {
    client.setNotificationHandler(method, (notification) => {
      const uri = (notification.params as { uri?: unknown } | undefined)?.uri;
      heard.push({ method, ...(typeof uri === 'string' ? { uri } : {}) });
    });
  }
  const subscription = await client.listen({
    toolsListChanged: true,
    promptsListChanged: true,
    resourcesListChanged: true,
    ...(resourceSubscriptions.length > 0 && { resourceSubscriptions }),
  });
  return {
    ...listener(heard, async () => {
      await subscription.close();
      await client.close();
    }),
    client,
  };
}
