import { afterAll, beforeAll, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { refundGraph } from './support/graphs.js';
import type { RunRecord } from '../src/runs/record/run-record.js';
import { type BackendFixture, createBackend } from './support/backends.js';
import {
  describeInChromium,
  expectRenderedScreenshot,
  launchChromium,
  newPage,
} from './support/chromium.js';
import { type GatedEndpoint, startGatedEndpoint } from './support/gated-endpoint.js';
import { type RunningGateway, startGateway } from './support/gateway.js';
import { writeKeysFile } from './support/keys-file.js';
import { TcpProxy } from './support/tcp-proxy.js';

// The studio's dashboard and live run view in a real browser (support/chromium.ts); the run
// page, graph pictures, playground and permissions are in studio-run-page.e2e-spec.ts.
const ROOT = 'studio-page-root-key';
const OPERATOR = 'studio-page-operator';
const VIEWER = 'studio-page-viewer';
const TENANT = 'acme';
const PROMPT = 'Hello from the studio page test';
const as = (key: string) => ({ Authorization: `Bearer ${key}` });
/** The page refreshes every 2 s; one refresh plus slack. */
const REFRESH_WAIT = { timeout: 6000 };

describeInChromium('studio-page.e2e-spec')('the studio page in Chromium', () => {
  let fixture: BackendFixture;
  let gateway: RunningGateway;
  let browser: Browser;
  let plainRun: RunRecord;
  let gate: GatedEndpoint;
  const problems: string[] = [];

  beforeAll(async () => {
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
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
    await fixture?.cleanup();
    await gate?.close();
  });

  async function openStudio(key: string, origin = gateway.url): Promise<Page> {
    const page = await newPage(browser, problems);
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

    await expectRenderedScreenshot(page, 'dashboard');
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
    const page = await openStudio(OPERATOR);
    // Someone else decided first: the gateway's answer, as this page would get it.
    await page.route('**/v1/runs/page-refused/deny', (route) =>
      route.fulfill({
        status: 409,
        contentType: 'application/problem+json',
        body: JSON.stringify({
          type: 'urn:svc:problem:approval-decided',
          title: 'Conflict',
          status: 409,
          detail: 'pay of run page-refused was already decided',
        }),
      }),
    );
    const row = page.locator('#loops-body tr[data-run-id="page-refused"]');
    await row.locator('button[data-action="deny"]').click(REFRESH_WAIT);
    const message = page.locator('#message.error');
    await message.waitFor(REFRESH_WAIT);
    expect(await message.innerText()).toBe(
      'Could not deny run page-refused: 409: pay of run page-refused was already decided',
    );
    const run = await request(gateway.url)
      .get(`/v1/runs/page-refused?tenant_id=${TENANT}`)
      .set(as(ROOT))
      .expect(200);
    expect(run.body.status).toBe('paused');
    await page.close();
  });

  it('offers no decision to a key that may not decide, and says so once', async () => {
    await pausedRun('page-viewer-paused');
    const page = await openStudio(VIEWER);
    const row = page.locator('#loops-body tr[data-run-id="page-viewer-paused"]');
    await row.waitFor(REFRESH_WAIT);
    expect(await row.locator('button').count()).toBe(0);
    expect(await row.locator('td.decision').innerText()).toBe('pay');
    expect(await page.locator('#loops-note').innerText()).toBe(
      'this key cannot approve or deny (approve:*)',
    );
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
      .locator('#loops-body tr[data-run-id="page-live"] a[data-action="open"]')
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
    await page.locator('#run-timeline', { hasText: 'The run cannot be shown (404' }).waitFor();
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

  it('asks once with a key the gateway refuses, says so, and asks nothing more', async () => {
    const page = await newPage(browser, problems);
    const asked: string[] = [];
    page.on('request', (sent) => {
      const path = new URL(sent.url()).pathname;
      if (path.startsWith('/v1/')) asked.push(`${sent.headers().authorization} ${path}`);
    });
    // The page's timers run on a clock the test moves: ten seconds pass at once.
    await page.clock.install();
    await page.goto(`${gateway.url}/studio`);
    await page.fill('#key', 'not-a-key-of-this-gateway');
    await page.click('#show');
    await page
      .locator('#status.error', { hasText: 'The gateway refused the key: 401' })
      .waitFor(REFRESH_WAIT);
    await page.clock.runFor(10_000);
    // Then a key it accepts: what the refused one asked for is everything before that.
    await page.fill('#key', VIEWER);
    await page.click('#show');
    await page.locator('#whoami', { hasText: 'Key view' }).waitFor(REFRESH_WAIT);
    const refused = asked.slice(0, asked.indexOf(`Bearer ${VIEWER} /v1/whoami`));
    expect(refused).toEqual(['Bearer not-a-key-of-this-gateway /v1/whoami']);
    await page.close();
  });

  it('ran without script errors or Content-Security-Policy violations', () => {
    expect(problems).toEqual([]);
  });
});
