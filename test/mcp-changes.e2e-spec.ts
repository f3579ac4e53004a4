import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { BACKENDS, type BackendFixture, createBackend } from './support/backends.js';
import { type RunningGateway, startGateway } from './support/gateway.js';
import { type Listener, legacyListener, modernListener } from './support/mcp-listeners.js';
import {
  KEY_A,
  KEY_B,
  ROOT_KEY,
  bearer,
  registerTool,
  writeMcpKeysFile,
} from './support/mcp-fixtures.js';
import { gatewayForSuite } from './support/suite.js';

const ENV = { SVC_API_KEY: ROOT_KEY, SVC_KEYS_FILE: writeMcpKeysFile() };

const TOOLS = 'notifications/tools/list_changed';
const PROMPTS = 'notifications/prompts/list_changed';
const RESOURCES = 'notifications/resources/list_changed';
const UPDATED = 'notifications/resources/updated';

/** How long a client that should hear nothing is given to hear it anyway. */
const SILENCE_MS = 500;

const PROMPT = {
  description: 'Says hello',
  messages: [{ role: 'user', content: { type: 'text', text: 'hello' } }],
};

/** A 2025-11-25 session (v1 client) or a 2026-07-28 listen stream (v2 client). */
const listeners = {
  legacy: legacyListener,
  modern: modernListener,
};

describe.each(BACKENDS)('MCP change notifications (%s)', (backend) => {
  const gateway = gatewayForSuite(backend, ENV);
  const admin = () => request(gateway.url);
  const mcp = () => `${gateway.url}/mcp/`;
  const putPrompt = (tenant: string, name: string) =>
    admin()
      .put(`/v1/prompts/${name}`)
      .set(bearer(ROOT_KEY))
      .send({ tenant_id: tenant, ...PROMPT })
      .expect(200);
  const putResource = (tenant: string, name: string, text = 'hi') =>
    admin()
      .put(`/v1/resources/${name}`)
      .set(bearer(ROOT_KEY))
      .send({ tenant_id: tenant, uri: `docs://${name}`, mime_type: 'text/plain', text })
      .expect(200);
  let cardId = '';

  beforeAll(async () => {
    const card = await admin()
      .post('/v1/board/cards')
      .set(bearer(ROOT_KEY))
      .send({ tenant_id: 'a', title: 'Watch me' })
      .expect(201);
    cardId = card.body.id as string;
  });

  it('declares list changes and subscriptions on a 2025 session, and keeps that word', async () => {
    const session = await legacyListener(mcp(), bearer(KEY_A));
    expect(session.client.getServerCapabilities()).toMatchObject({
      tools: { listChanged: true },
      prompts: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      logging: {},
    });
    await registerTool(gateway.url, {
      tenant: 'a',
      toolset: 'default',
      name: 'announced',
      url: 'http://127.0.0.1:9/none',
    });
    await putPrompt('a', 'announced');
    await putResource('a', 'announced');
    for (const method of [TOOLS, PROMPTS, RESOURCES]) {
      expect({ method, outcome: await session.hears(method) }).toEqual({
        method,
        outcome: 'heard',
      });
    }
    await session.close();
  });

  describe.each(['legacy', 'modern'] as const)('to %s clients', (era) => {
    let a: Listener;
    let otherToolset: Listener;
    let b: Listener;
    const watched = () => [`svc://board/cards/${cardId}`, `svc://runs/watched-run-${era}`];

    beforeAll(async () => {
      a = await listeners[era](mcp(), bearer(KEY_A), watched());
      otherToolset = await listeners[era](mcp(), { ...bearer(KEY_A), 'X-Toolset': 'ops' });
      // Tenant b watches the very same URIs: they name tenant a's documents, not b's.
      b = await listeners[era](mcp(), bearer(KEY_B), watched());
    });
    afterAll(() => Promise.all([a, otherToolset, b].map((l) => l?.close())));

    it("hears its own tenant's changes, its toolset's tools, never another tenant's", async () => {
      await registerTool(gateway.url, {
        tenant: 'a',
        toolset: 'default',
        name: `added_for_${era}`,
        url: 'http://127.0.0.1:9/none',
      });
      await putPrompt('a', `prompt_for_${era}`);
      await putResource('a', `resource_for_${era}`);
      expect(await a.hears(TOOLS)).toBe('heard');
      expect(await a.hears(PROMPTS)).toBe('heard');
      expect(await a.hears(RESOURCES)).toBe('heard');
      // Prompts and resources are the tenant's; tools its toolset's.
      expect(await otherToolset.hears(PROMPTS)).toBe('heard');
      expect(await otherToolset.hears(TOOLS, undefined, SILENCE_MS)).toBe('silent');
      expect(b.heard).toEqual([]);
    });

    it('hears updates of the board card and run it subscribed to, as they happen', async () => {
      const card = `svc://board/cards/${cardId}`;
      await admin()
        .patch(`/v1/board/cards/${cardId}`)
        .set(bearer(ROOT_KEY))
        .send({ tenant_id: 'a', title: `Watched by ${era}` })
        .expect(200);
      expect(await a.hears(UPDATED, card)).toBe('heard');
      const run = await admin()
        .post('/v1/agent/run')
        .set(bearer(ROOT_KEY))
        .send({ tenant_id: 'a', prompt: 'hello', run_id: `watched-run-${era}` })
        .expect(200);
      expect(run.body.status).toBe('completed');
      expect(await a.hears(UPDATED, `svc://runs/watched-run-${era}`)).toBe('heard');
      // Not a URI it subscribed to; nor tenant b's, though it watches the same strings.
      await putResource('a', `unwatched_${era}`, 'changed');
      await new Promise((resolve) => setTimeout(resolve, SILENCE_MS));
      expect(a.heard.filter((h) => h.method === UPDATED).map((h) => h.uri)).not.toContain(
        `docs://unwatched_${era}`,
      );
      expect(b.heard).toEqual([]);
    });
  });

  it("relays an upstream's prompt and resource list changes to its toolset's clients only", async () => {
    // The upstream is this gateway itself, as tenant `upstream-side`; it is part of tenant a's
    // toolset `fed`. Tenant a's clients of `fed` hear what the upstream announces.
    await admin()
      .put('/v1/toolsets/fed/upstreams/peer')
      .set(bearer(ROOT_KEY))
      .send({
        tenant_id: 'a',
        url: mcp(),
        headers: { Authorization: `Bearer ${ROOT_KEY}`, 'X-Tenant-Id': 'upstream-side' },
      })
      .expect(200);
    const fed = await legacyListener(mcp(), { ...bearer(KEY_A), 'X-Toolset': 'fed' });
    const plain = await legacyListener(mcp(), bearer(KEY_A));
    // Listing the toolset connects the gateway to its upstream, which then listens for changes;
    // until that listen stream is open the upstream's announcements reach nobody, so announce
    // again until one arrives (slower than the SDK client's 300 ms debounce of them).
    await admin().get('/v1/toolsets/fed?tenant_id=a').set(bearer(ROOT_KEY)).expect(200);
    const deadline = Date.now() + 10_000;
    for (let i = 0; (await fed.hears(PROMPTS, undefined, 1000)) === 'silent'; i++) {
      if (Date.now() > deadline) throw new Error('the upstream prompt change was never relayed');
      await putPrompt('upstream-side', `upstream_prompt_${i}`);
    }
    await putResource('upstream-side', 'upstream_doc');
    expect(await fed.hears(RESOURCES)).toBe('heard');
    // Another toolset of the same tenant holds no such upstream: it hears none of it.
    expect(plain.heard).toEqual([]);
    await Promise.all([fed.close(), plain.close()]);
  });
});

describe('MCP change notifications across replicas (postgres)', () => {
  let fixture: BackendFixture;
  let replicas: RunningGateway[];

  beforeAll(async () => {
    fixture = await createBackend('postgres');
    const env = { ...fixture.env, ...ENV };
    replicas = [await startGateway(env), await startGateway(env)];
  });
  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.close()));
    await fixture.cleanup();
  });

  it('tells a 2025 session on one replica of a change made on the other, and of a run settled there', async () => {
    const [here, there] = replicas;
    const session = await legacyListener(`${here.url}/mcp/`, bearer(KEY_A), [
      'svc://runs/settled-elsewhere',
    ]);
    await registerTool(there.url, {
      tenant: 'a',
      toolset: 'default',
      name: 'from_the_other_replica',
      url: 'http://127.0.0.1:9/none',
    });
    expect(await session.hears(TOOLS)).toBe('heard');
    await request(there.url)
      .post('/v1/agent/run')
      .set(bearer(ROOT_KEY))
      .send({ tenant_id: 'a', prompt: 'hello', run_id: 'settled-elsewhere' })
      .expect(200);
    expect(await session.hears(UPDATED, 'svc://runs/settled-elsewhere')).toBe('heard');
    await session.close();
  });
});
