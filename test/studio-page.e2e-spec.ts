import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, writeFileSync } from 'node:fs';
import { type Browser, type Page, chromium } from 'playwright-core';
import request from 'supertest';
import { refundGraph } from './support/graphs.js';
import type { RunRecord } from '../src/runs/record/run-record.js';
import { type BackendFixture, createBackend } from './support/backends.js';
import { type GatedEndpoint, startGatedEndpoint } from './support/gated-endpoint.js';
import { type RunningGateway, startGateway } from './support/gateway.js';
import { writeKeysFile } from './support/keys-file.js';
import { decodePng } from './support/png.js';
import { TcpProxy } from './support/tcp-proxy.js';

// The studio page in a real browser: Debian's `chromium` driven by playwright-core. CI installs
// it (.ci/run) and a missing browser fails there; elsewhere the suite is skipped with a note.
// STUDIO_SCREENSHOT=<file.png> keeps the screenshot the test checks.
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
const IN_CI = process.env.CI === 'true' || process.env.CI === '1';
if (!HAVE_CHROMIUM && !IN_CI) {
  process.stderr.write(
    `studio-page.e2e-spec: skipped, no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)\n`,
  );
}

const ROOT = 'studio-page-root-key';
const OPERATOR = 'studio-page-operator';
const VIEWER = 'studio-page-viewer';
const TENANT = 'acme';
const PROMPT = 'Hello from the studio page test';
const as = (key: string) => ({ Authorization: `Bearer ${key}` });
/** The page refreshes every 2 s; one refresh plus slack. */
const REFRESH_WAIT = { timeout: 6000 };

(HAVE_CHROMIUM || IN_CI ? describe : describe.skip)('the studio page in Chromium', () => {
  let fixture: BackendFixture;
  let gateway: RunningGateway;
  let browser: Browser;
  let plainRun: RunRecord;
  let gate: GatedEndpoint;
  const problems: string[] = [];

  beforeAll(async () => {
    if (!HAVE_CHROMIUM) {
      throw new Error(`no Chromium at ${CHROMIUM}: CI must install Debian's chromium (.ci/run)`);
    }
    gate = await startGatedEndpoint();
    fixture = await createBackend('sqlite');
    gateway = await startGateway({
      ...fixture.env,
      SVC_API_KEY: ROOT,
      SVC_KEYS_FILE: writeKeysFile({
        keys: [
          { id: 'ops', key: OPERATOR, tenant_id: TENANT, roles: ['operator'] },
          { id: 'view', key: VIEWER, tenant_id: TENANT, roles: ['viewer'] },
        ],
      }),
    });
    await request(gateway.url)
      .put('/v1/agents/refund')
      .set(as(ROOT))
      .send(refundGraph(TENANT))
      .expect(200);
    // Tool `wait` answers when the test says so: a run that is running for as long as needed.
    await request(gateway.url)
      .put('/v1/toolsets/ops/tools/wait')
      .set(as(ROOT))
      .send({
        tenant_id: TENANT,
        description: 'waits for the test',
        parameters: { type: 'object', properties: {} },
        endpoint: { url: gate.url },
      })
      .expect(200);
    await request(gateway.url)
      .post('/v1/board/cards')
      .set(as(ROOT))
      .send({ tenant_id: TENANT, title: 'Check the studio', assignee: 'ann' })
      .expect(201);
    plainRun = (
      await request(gateway.url)
        .post('/v1/agent/run')
        .set(as(ROOT))
        .send({ tenant_id: TENANT, prompt: PROMPT })
        .expect(200)
    ).body as RunRecord;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      // Tests run as root, where Chromium's sandbox cannot start.
      args: ['--no-sandbox'],
    });
  });

  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
    await fixture?.cleanup();
    await gate?.close();
  });

  async function openStudio(key: string, origin = gateway.url): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      // A refused call is a message on the page; the browser also logs the failed load.
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
        problems.push(`console: ${message.text()}`);
      }
    });
    await page.goto(`${origin}/studio`);
    await page.fill('#key', key);
    await page.fill('#tenant', TENANT);
    await page.click('#show');
    return page;
  }

  const pausedRun = async (runId: string) =>
    request(gateway.url)
      .post('/v1/agent/run')
      .set(as(ROOT))
      .send({ tenant_id: TENANT, agent: 'refund', prompt: 'order 12', run_id: runId })
      .expect(202);

  it('shows the sessions, loops, counts and board of a tenant after a run', async () => {
    const page = await openStudio(OPERATOR);
    const session = page.locator(`#sessions-body tr[data-session-id="${plainRun.session_id}"]`);
    await session.waitFor({ state: 'visible', ...REFRESH_WAIT });
    expect(await session.innerText()).toContain(PROMPT);
    const loop = page.locator(`#loops-body tr[data-run-id="${plainRun.run_id}"]`);
    expect(await loop.getAttribute('data-status')).toBe('completed');
    expect(await page.locator('[data-count="sessions"] dd').innerText()).toBe('1');
    expect(await page.locator('[data-count="running_loops"] dd').innerText()).toBe('0');
    const todo = page.locator('[data-column="todo"]');
    await todo.getByText('Check the studio').waitFor(REFRESH_WAIT);
    expect(await page.locator('#status').innerText()).toContain(`tenant ${TENANT}`);

    const png = await page.screenshot();
    if (process.env.STUDIO_SCREENSHOT) writeFileSync(process.env.STUDIO_SCREENSHOT, png);
    const image = decodePng(png);
    expect(png.length).toBeGreaterThan(10_000);
    expect(image).toMatchObject({ width: 1280, height: 900 });
    // Text, tables and badges: many colours and a fair share of non-background pixels.
    expect(image.colors).toBeGreaterThan(50);
    expect(image.inked).toBeGreaterThan(0.02);
    expect(await session.isVisible()).toBe(true);
    // Sessions are in sessionStorage: a reload shows them again without asking.
    await page.reload();
    await session.waitFor({ state: 'visible', ...REFRESH_WAIT });
    await page.close();
  });

  it('approves a paused run from the page, after which the run completes', async () => {
    await pausedRun('page-approve');
    const page = await openStudio(OPERATOR);
    const row = page.locator('#loops-body tr[data-run-id="page-approve"]');
    await row.locator('button[data-action="approve"]').click(REFRESH_WAIT);
    await page
      .locator('#message', { hasText: 'pay approved; the run is completed' })
      .waitFor(REFRESH_WAIT);
    await page
      .locator('#loops-body tr[data-run-id="page-approve"][data-status="completed"]')
      .waitFor(REFRESH_WAIT);
    expect(await row.locator('button.approve, button.deny').count()).toBe(0);
    const run = await request(gateway.url)
      .get(`/v1/runs/page-approve?tenant_id=${TENANT}`)
      .set(as(ROOT))
      .expect(200);
    expect(run.body).toMatchObject({ status: 'completed', text: 'paid order 12' });
    await page.close();
  });

  it('shows a refused decision as a message and leaves the run paused', async () => {
    await pausedRun('page-refused');
    const page = await openStudio(VIEWER);
    const row = page.locator('#loops-body tr[data-run-id="page-refused"]');
    await row.locator('button[data-action="deny"]').click(REFRESH_WAIT);
    const message = page.locator('#message.error');
    await message.waitFor(REFRESH_WAIT);
    expect(await message.innerText()).toBe(
      'Could not deny run page-refused: 403: this key lacks the permission approve:*',
    );
    const run = await request(gateway.url)
      .get(`/v1/runs/page-refused?tenant_id=${TENANT}`)
      .set(as(ROOT))
      .expect(200);
    expect(run.body.status).toBe('paused');
    // The viewer may not read the board: said on the page, the rest still shows.
    expect(await page.locator('#board-note').innerText()).toContain('403');
    await page.close();
  });

  /** Starts a run that waits in its tool call until the gate is released. */
  const waitingRun = async (runId: string) => {
    await request(gateway.url)
      .post('/v1/agent/run')
      .set(as(ROOT))
      .send({
        tenant_id: TENANT,
        toolset: 'ops',
        prompt: '/tool wait {}',
        run_id: runId,
        background: true,
      })
      .expect(202);
    await gate.arrived();
  };

  const openRunById = async (page: Page, runId: string) => {
    await page.fill('#run-input', runId);
    await page.click('#open');
    await page.locator(`#run[data-run-id="${runId}"]`).waitFor(REFRESH_WAIT);
  };

  /** An attribute of each event the run view lists, in order. */
  const listed = async (page: Page, attribute: string): Promise<string[]> => {
    const items = await page.locator('#run-events li').all();
    return Promise.all(items.map(async (item) => (await item.getAttribute(attribute)) ?? ''));
  };
  const eventTypes = (page: Page) => listed(page, 'data-type');

  it("shows a running run's events as they happen, then its settled state", async () => {
    await waitingRun('page-live');
    const page = await openStudio(OPERATOR);
    await page
      .locator('#loops-body tr[data-run-id="page-live"] button[data-action="open"]')
      .click(REFRESH_WAIT);
    const view = page.locator('#run[data-run-id="page-live"]');
    await view.locator('#run-tools tr[data-state="running"]').waitFor(REFRESH_WAIT);
    expect(await page.locator('#run-status').innerText()).toBe('running');
    expect(await page.locator('#run-cancel').isVisible()).toBe(true);
    await page.locator('#run-live', { hasText: 'Live' }).waitFor(REFRESH_WAIT);
    expect(await eventTypes(page)).toEqual(['run.started', 'tool.started']);

    // What happens now reaches the open page over its stream.
    gate.release();
    await page.locator('#run[data-status="completed"]').waitFor(REFRESH_WAIT);
    const tool = page.locator('#run-tools tr[data-state="ok"]');
    expect(await tool.locator('td[data-cell="name"]').innerText()).toBe('wait');
    expect(await tool.locator('td[data-cell="took"]').innerText()).toMatch(/^\d+ ms$/);
    const types = await eventTypes(page);
    expect(types.slice(0, 3)).toEqual(['run.started', 'tool.started', 'tool.finished']);
    expect(types.at(-1)).toBe('run.settled');
    expect(await page.locator('#run-answer').innerText()).toContain('wait →');
    expect(await page.locator('#run-summary').innerText()).toBe('turns 2 · tool calls 1');
    expect(await page.locator('#run-cancel').isVisible()).toBe(false);
    expect(await page.locator('#run-live').innerText()).toContain('Settled: completed');
    await page.close();
  });

  it('resumes the live stream after its connection is cut, missing no event', async () => {
    const proxy = new TcpProxy('127.0.0.1', Number(new URL(gateway.url).port));
    await proxy.start();
    try {
      await waitingRun('page-resume');
      const page = await openStudio(OPERATOR, `http://127.0.0.1:${proxy.port}`);
      await openRunById(page, 'page-resume');
      await page.locator('#run-tools tr[data-state="running"]').waitFor(REFRESH_WAIT);
      await page.locator('#run-live', { hasText: 'Live' }).waitFor(REFRESH_WAIT);
      await proxy.stop();
      await page.locator('#run-live', { hasText: /reconnecting after event \d+/ }).waitFor();
      await proxy.start();
      gate.release();
      await page.locator('#run[data-status="completed"]').waitFor(REFRESH_WAIT);
      // Every event of the log is listed once (deltas go into the answer, not the list).
      const log = await request(gateway.url)
        .get(`/v1/runs/page-resume/events?tenant_id=${TENANT}`)
        .set(as(ROOT))
        .expect(200);
      const expected = (log.body.events as Array<{ id: number; type: string }>)
        .filter((event) => event.type !== 'model.delta')
        .map((event) => String(event.id));
      expect(await listed(page, 'data-event-id')).toEqual(expected);
      expect(await eventTypes(page)).toContain('tool.finished');
      await page.close();
    } finally {
      await proxy.stop();
    }
  });

  it("shows a settled run's history from its event log", async () => {
    const page = await openStudio(VIEWER);
    await openRunById(page, plainRun.run_id);
    await page.locator('#run[data-status="completed"]').waitFor(REFRESH_WAIT);
    const types = await eventTypes(page);
    expect(types[0]).toBe('run.started');
    expect(types.at(-1)).toBe('run.settled');
    expect(await page.locator('#run-answer').innerText()).toBe(PROMPT);
    expect(await page.locator('#run-tools').innerText()).toContain('No tool calls yet.');
    expect(await page.locator('#run-live').innerText()).toContain('Settled: completed');
    // A run the tenant does not have is said so.
    await page.fill('#run-input', 'no-such-run');
    await page.click('#open');
    await page.locator('#run-live', { hasText: '404' }).waitFor(REFRESH_WAIT);
    await page.close();
  });

  it("posts the cancel of a running run to /v1/runs/{id}/cancel with the run's tenant", async () => {
    await waitingRun('page-cancel');
    const page = await openStudio(OPERATOR);
    const posted: Array<{ method: string; auth?: string; body: unknown }> = [];
    // The request as the page sends it; the answer as the gateway gives it while cancelling.
    await page.route('**/v1/runs/page-cancel/cancel', async (route) => {
      const sent = route.request();
      posted.push({
        method: sent.method(),
        auth: (await sent.allHeaders()).authorization,
        body: sent.postDataJSON() as unknown,
      });
      await route.fulfill({
        status: 202,
        contentType: 'application/json',
        body: JSON.stringify({ run_id: 'page-cancel', status: 'running' }),
      });
    });
    await openRunById(page, 'page-cancel');
    await page.locator('#run-live', { hasText: 'Live' }).waitFor(REFRESH_WAIT);
    await page.click('#run-cancel');
    await page.locator('#message', { hasText: 'Run page-cancel is being cancelled.' }).waitFor();
    expect(posted).toEqual([
      { method: 'POST', auth: `Bearer ${OPERATOR}`, body: { tenant_id: TENANT } },
    ]);
    expect(await page.locator('#run-cancel').isDisabled()).toBe(true);
    gate.release();
    await page.locator('#run[data-status="completed"]').waitFor(REFRESH_WAIT);
    expect(await page.locator('#run-cancel').isVisible()).toBe(false);
    await page.close();
  });

  it('approves a paused run from its live view, which then shows it complete', async () => {
    await pausedRun('page-live-approve');
    const page = await openStudio(OPERATOR);
    await openRunById(page, 'page-live-approve');
    await page.locator('#run[data-status="paused"]').waitFor(REFRESH_WAIT);
    expect(await page.locator('#run-pending').innerText()).toBe('pay waits for approval');
    expect(await page.locator('#run-steps tr[data-key="look"]').getAttribute('data-state')).toBe(
      'completed',
    );
    await page.locator('#run-live', { hasText: 'Live' }).waitFor(REFRESH_WAIT);
    await page.click('#run-approve');
    await page
      .locator('#message', { hasText: 'pay approved; the run is completed' })
      .waitFor(REFRESH_WAIT);
    await page.locator('#run[data-status="completed"]').waitFor(REFRESH_WAIT);
    const types = await eventTypes(page);
    expect(types).toEqual(
      expect.arrayContaining(['approval.requested', 'run.paused', 'approval.decided']),
    );
    expect(types.at(-1)).toBe('run.settled');
    expect(await page.locator('#run-approve').isVisible()).toBe(false);
    expect(await page.locator('#run-answer').innerText()).toBe('paid order 12');
    await page.close();
  });

  it('ran without script errors or Content-Security-Policy violations', () => {
    expect(problems).toEqual([]);
  });
});
