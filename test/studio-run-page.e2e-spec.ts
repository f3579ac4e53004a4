import { afterAll, beforeAll, expect, it } from '@jest/globals';
import type { Browser, Page, Response } from 'playwright-core';
import request from 'supertest';
import { BACKENDS, type BackendFixture, createBackend } from './support/backends.js';
import {
  describeInChromium,
  expectRenderedScreenshot,
  launchChromium,
  newPage,
} from './support/chromium.js';
import { type RunningGateway, startGateway } from './support/gateway.js';
import { refundGraph } from './support/graphs.js';
import { writeKeysFile } from './support/keys-file.js';

// The studio's run page, graph pictures, playground and permissions in a real browser, on both
// state backends (the studio and audit are in the state backend on PostgreSQL).
const ROOT = 'studio-run-root-key';
const OPERATOR = 'studio-run-operator';
const VIEWER = 'studio-run-viewer';
const READER = 'studio-run-reader';
const TENANT = 'acme';
const as = (key: string) => ({ Authorization: `Bearer ${key}` });
const WAIT = { timeout: 8000 };
/** How long the dashboard waits between refreshes (studio-ui/dashboard.js). */
const DASHBOARD_REFRESH_MS = 2000;

describeInChromium('studio-run-page.e2e-spec').each(BACKENDS)(
  'the studio run page, graphs and playground in Chromium (%s)',
  (backend) => {
    let fixture: BackendFixture;
    let gateway: RunningGateway;
    let browser: Browser;
    const problems: string[] = [];

    beforeAll(async () => {
      fixture = await createBackend(backend);
      gateway = await startGateway({
        ...fixture.env,
        SVC_API_KEY: ROOT,
        SVC_KEYS_FILE: writeKeysFile({
          keys: [
            { id: 'ops', key: OPERATOR, tenant_id: TENANT, roles: ['operator'] },
            { id: 'view', key: VIEWER, tenant_id: TENANT, roles: ['viewer'] },
            { id: 'read', key: READER, tenant_id: TENANT, roles: ['reader'] },
          ],
          // What the README's example role `auditor` grants: no board, no audit.
          roles: { reader: ['studio:read', 'runs:read'] },
        }),
      });
      await request(gateway.url)
        .put('/v1/agents/refund')
        .set(as(ROOT))
        .send(refundGraph(TENANT))
        .expect(200);
      browser = await launchChromium();
    });

    afterAll(async () => {
      await browser?.close();
      await gateway?.close();
      await fixture?.cleanup();
    });

    /** The studio at `hash`, connected with `key` for the tenant. */
    async function openStudio(key: string, hash = '#/'): Promise<Page> {
      const page = await newPage(browser, problems);
      await page.goto(`${gateway.url}/studio${hash}`);
      await page.fill('#key', key);
      await page.fill('#tenant', TENANT);
      await page.click('#show');
      await page.locator('#whoami', { hasText: 'Key ' }).waitFor(WAIT);
      return page;
    }

    const rows = async (page: Page, selector: string, attribute: string) =>
      Promise.all(
        (await page.locator(selector).all()).map(async (row) => row.getAttribute(attribute)),
      );

    it("shows a tool run's facts, timeline, spans and audit events", async () => {
      await request(gateway.url)
        .post('/v1/agent/run')
        .set(as(ROOT))
        .send({
          tenant_id: TENANT,
          run_id: 'page-tool',
          prompt: '/tool calculator {"expression":"6*7"}',
        })
        .expect(200);
      const page = await openStudio(OPERATOR, `#/runs/page-tool?tenant=${TENANT}`);
      await page.locator('#run[data-status="completed"]').waitFor(WAIT);
      await page.locator('#run-facts [data-fact="usage"]').waitFor(WAIT);
      expect(await page.locator('#run-facts [data-fact="agent"] dd').innerText()).toBe('default');
      expect(await page.locator('#run-facts [data-fact="tenant"] dd').innerText()).toBe(TENANT);
      expect(await page.locator('#run-facts [data-fact="usage"] dd').innerText()).toMatch(
        /\d+ tokens/,
      );
      // Timeline: the run, its two turns and the tool call between them.
      const tool = page.locator('#run-timeline tr[data-kind="tool"][data-tool="calculator"]');
      await tool.waitFor(WAIT);
      expect(await tool.getAttribute('data-status')).toBe('ok');
      expect(await tool.innerText()).toContain('42');
      // The second turn's answer comes from the record.
      await page
        .locator('#run-timeline tr[data-key="turn/2"]', { hasText: 'calculator → 42' })
        .waitFor(WAIT);
      expect(await rows(page, '#run-timeline tr', 'data-kind')).toEqual([
        'run',
        'turn',
        'tool',
        'turn',
      ]);
      // Spans of this replica's ring, as a tree under the run's span.
      await page.locator('#run-spans tr[data-span="execute_tool calculator"]').waitFor(WAIT);
      expect((await rows(page, '#run-spans tr', 'data-span'))[0]).toBe('invoke_agent default');
      expect(await page.locator('#run-spans-note').innerText()).toMatch(/\d+ spans kept/);
      // The operator reads the audit trail of its tenant.
      await page.locator('#run-audit tr[data-kind="run.completed"]').waitFor(WAIT);
      expect(await rows(page, '#run-audit tr', 'data-kind')).toEqual([
        'run.started',
        'run.completed',
      ]);
      await expectRenderedScreenshot(page, 'run-page-tool');

      // A tool call that failed is flagged, with what the model was told.
      await request(gateway.url)
        .post('/v1/agent/run')
        .set(as(ROOT))
        .send({
          tenant_id: TENANT,
          run_id: 'page-tool-error',
          prompt: '/tool calculator {"expression":"1/0"}',
        })
        .expect(200);
      await page.goto(`${gateway.url}/studio#/runs/page-tool-error?tenant=${TENANT}`);
      await page
        .locator('#run[data-run-id="page-tool-error"][data-status="completed"]')
        .waitFor(WAIT);
      const failed = page.locator('#run-timeline tr[data-kind="tool"][data-status="error"]');
      await failed.waitFor(WAIT);
      expect(await failed.innerText()).toMatch(/zero/i);
      expect(await page.locator('#run-tools tr[data-state="error"]').count()).toBe(1);
      await page.close();
    });

    /** The named attributes of every element `selector` finds, in document order. */
    const attributes = async (
      page: Page,
      selector: string,
      names: string[],
    ): Promise<Array<Record<string, string | null>>> =>
      Promise.all(
        (await page.locator(selector).all()).map(async (node) => {
          const found: Record<string, string | null> = {};
          for (const name of names) found[name] = await node.getAttribute(name);
          return found;
        }),
      );

    it('pictures a paused graph run with the node it waits at, then its approval from the page', async () => {
      await request(gateway.url)
        .post('/v1/agent/run')
        .set(as(ROOT))
        .send({ tenant_id: TENANT, agent: 'refund', prompt: 'order 12', run_id: 'page-graph' })
        .expect(202);
      const page = await openStudio(OPERATOR, `#/runs/page-graph?tenant=${TENANT}`);
      await page.locator('#run[data-status="paused"]').waitFor(WAIT);
      const graph = page.locator('#run-graph svg.graph-picture');
      await graph.locator('g.node[data-node="pay"][data-waiting="true"]').waitFor(WAIT);
      expect(
        await attributes(page, '#run-graph g.node', [
          'data-node',
          'data-status',
          'data-approval',
          'data-waiting',
        ]),
      ).toEqual([
        {
          'data-node': 'look',
          'data-status': 'completed',
          'data-approval': null,
          'data-waiting': null,
        },
        {
          'data-node': 'pay',
          'data-status': 'awaiting_approval',
          'data-approval': 'true',
          'data-waiting': 'true',
        },
      ]);
      expect(await attributes(page, '#run-graph path.edge', ['data-from', 'data-to'])).toEqual([
        { 'data-from': 'look', 'data-to': 'pay' },
      ]);
      expect(await graph.locator('g.node[data-node="pay"]').textContent()).toContain(
        'waits for approval',
      );
      // The timeline: the steps with their times, and the approval it waits for.
      await page
        .locator('#run-timeline tr[data-key="approval/pay"][data-status="waiting"]')
        .waitFor(WAIT);
      await page
        .locator('#run-timeline tr[data-key="step/pay"][data-status="awaiting_approval"]')
        .waitFor(WAIT);
      expect(await attributes(page, '#run-timeline tr', ['data-key', 'data-status'])).toEqual([
        { 'data-key': 'run', 'data-status': 'paused' },
        { 'data-key': 'step/look', 'data-status': 'completed' },
        { 'data-key': 'approval/pay', 'data-status': 'waiting' },
        { 'data-key': 'step/pay', 'data-status': 'awaiting_approval' },
      ]);
      await page.locator('#run-spans tr[data-span="graph.step look"]').waitFor(WAIT);
      await page.locator('#run-audit tr[data-kind="run.paused"]').waitFor(WAIT);
      await page.locator('#run-graph-box').scrollIntoViewIfNeeded();
      await expectRenderedScreenshot(page, 'run-page-graph-paused');

      await page.click('#run-approve');
      await page
        .locator('#message', { hasText: 'pay approved; the run is completed' })
        .waitFor(WAIT);
      await page.locator('#run[data-status="completed"]').waitFor(WAIT);
      await graph.locator('g.node[data-node="pay"][data-status="completed"]').waitFor(WAIT);
      expect(await graph.locator('g.node[data-waiting]').count()).toBe(0);
      await page
        .locator('#run-timeline tr[data-key="approval/pay"][data-status="approved"]')
        .waitFor(WAIT);
      expect(await page.locator('#run-timeline tr[data-key="approval/pay"]').innerText()).toContain(
        'approved by ops',
      );
      expect(
        await page.locator('#run-timeline tr[data-key="step/pay"]').getAttribute('data-status'),
      ).toBe('completed');
      // Both executions' spans (the first, and the one the approval started) and the audit.
      await page.locator('#run-spans tr[data-span="graph.step pay"]').waitFor(WAIT);
      expect(await page.locator('#run-spans tr[data-span="invoke_agent refund"]').count()).toBe(2);
      await page.locator('#run-audit tr[data-kind="run.completed"]').waitFor(WAIT);
      expect(await rows(page, '#run-audit tr', 'data-kind')).toEqual(
        expect.arrayContaining(['run.started', 'run.paused', 'approval.decided', 'run.completed']),
      );
      await page.close();
    });

    /** A parallel graph: `a`, then `b` and `c` side by side, then `d`, which needs approval. */
    const fanout = {
      tenant_id: TENANT,
      topology: 'parallel',
      description: 'fans out and joins',
      steps: [
        { id: 'a', kind: 'tool', tool: 'echo', arguments: { text: '{{input}}' } },
        { id: 'b', kind: 'tool', tool: 'echo', depends_on: ['a'], arguments: { text: 'b' } },
        { id: 'c', kind: 'tool', tool: 'echo', depends_on: ['a'], arguments: { text: 'c' } },
        {
          id: 'd',
          kind: 'tool',
          tool: 'echo',
          depends_on: ['b', 'c'],
          require_approval: true,
          arguments: { text: 'd' },
        },
      ],
    };
    /** The x of each node's box, by node. */
    const columns = async (page: Page, selector: string) =>
      Object.fromEntries(
        (await attributes(page, `${selector} g.node`, ['data-node', 'transform'])).map((node) => [
          node['data-node'] ?? '',
          Number(/translate\((\d+)/.exec(node.transform ?? '')?.[1]),
        ]),
      );

    it("lists the tenant's agents and pictures a graph: nodes by depth, edges, approval nodes", async () => {
      await request(gateway.url).put('/v1/agents/fanout').set(as(ROOT)).send(fanout).expect(200);
      const page = await openStudio(VIEWER, '#/agents');
      await page.locator('#agents-list a[data-agent="fanout"]').click(WAIT);
      await page.locator('#agent[data-agent="fanout"]').waitFor(WAIT);
      expect(await page.locator('#agent-summary').innerText()).toBe(
        'parallel, 4 steps, version 1 · fans out and joins',
      );
      expect(
        await attributes(page, '#agent-graph g.node', [
          'data-node',
          'data-approval',
          'data-status',
        ]),
      ).toEqual([
        { 'data-node': 'a', 'data-approval': null, 'data-status': null },
        { 'data-node': 'b', 'data-approval': null, 'data-status': null },
        { 'data-node': 'c', 'data-approval': null, 'data-status': null },
        { 'data-node': 'd', 'data-approval': 'true', 'data-status': null },
      ]);
      expect(await attributes(page, '#agent-graph path.edge', ['data-from', 'data-to'])).toEqual([
        { 'data-from': 'a', 'data-to': 'b' },
        { 'data-from': 'a', 'data-to': 'c' },
        { 'data-from': 'b', 'data-to': 'd' },
        { 'data-from': 'c', 'data-to': 'd' },
      ]);
      // Layers by dependency depth, left to right: b and c side by side.
      const x = await columns(page, '#agent-graph');
      expect(x.a).toBeLessThan(x.b);
      expect(x.b).toBe(x.c);
      expect(x.c).toBeLessThan(x.d);
      expect(await page.locator('#agent-steps tr').count()).toBe(4);
      expect(await page.locator('#agent-play').getAttribute('href')).toBe(
        '#/playground?agent=fanout',
      );
      await expectRenderedScreenshot(page, 'agents-fanout');
      // A pipeline: its order is its one edge (depends_on says the same).
      await page.locator('#agents-list a[data-agent="refund"]').click();
      await page.locator('#agent[data-agent="refund"]').waitFor(WAIT);
      expect(await attributes(page, '#agent-graph path.edge', ['data-from', 'data-to'])).toEqual([
        { 'data-from': 'look', 'data-to': 'pay' },
      ]);
      await page.close();
    });

    it('starts a run from the playground, streams it live and links its run page', async () => {
      const page = await openStudio(OPERATOR, '#/playground');
      const eventReads: string[] = [];
      page.on('request', (sent) => {
        if (/\/v1\/runs\/[^/]+\/events/.test(sent.url())) eventReads.push(sent.url());
      });
      await page
        .locator('#play-agent option[value="refund"]')
        .waitFor({ state: 'attached', ...WAIT });
      await page
        .locator('#play-toolsets option[value="default"]')
        .waitFor({ state: 'attached', ...WAIT });
      await page.fill('#play-prompt', '/tool calculator {"expression":"2*(3+4)"}');
      await page.click('#play-start');
      await page.locator('#play[data-status="completed"]').waitFor(WAIT);
      expect(await page.locator('#play-answer').innerText()).toContain('calculator → 14');
      expect(
        await page.locator('#play-tools tr[data-state="ok"] td[data-cell="name"]').innerText(),
      ).toBe('calculator');
      // Read from the POST's own stream: the run's log was never asked for.
      expect(eventReads).toEqual([]);
      const link = page.locator('#play-link a');
      const runId = (await link.getAttribute('data-run-id'))!;
      expect(runId).toMatch(/^play-[0-9a-f]{24}$/);
      await expectRenderedScreenshot(page, 'playground');
      await link.click();
      await page.locator(`#run[data-run-id="${runId}"][data-status="completed"]`).waitFor(WAIT);
      await page.locator('#run-timeline tr[data-tool="calculator"]').waitFor(WAIT);

      // A graph from the playground stops where it needs a decision.
      await page.goto(`${gateway.url}/studio#/playground?agent=refund`);
      await page.click('#show');
      await page
        .locator('#play-agent option[value="refund"]')
        .waitFor({ state: 'attached', ...WAIT });
      expect(await page.locator('#play-agent').inputValue()).toBe('refund');
      await page.fill('#play-prompt', 'order 5');
      await page.click('#play-start');
      await page.locator('#play[data-status="paused"]').waitFor(WAIT);
      expect(await page.locator('#play-pending').innerText()).toBe('pay waits for approval');
      await page.close();
    });

    /** Every answer the page gets, as `status METHOD /path`. */
    const recordAnswers = (page: Page): string[] => {
      const answers: string[] = [];
      page.on('response', (response: Response) => {
        const url = new URL(response.url());
        answers.push(`${response.status()} ${response.request().method()} ${url.pathname}`);
      });
      return answers;
    };
    /**
     * `count` refreshes of the dashboard, each brought on by moving the page's clock (installed
     * by `pageWithClock`) past the 2 s the page waits between them, rather than waiting them out.
     */
    const refreshes = async (page: Page, count: number) => {
      for (let i = 0; i < count; i++) {
        const refreshed = page.waitForResponse(
          (response) => response.url().includes('/v1/studio?'),
          WAIT,
        );
        await page.clock.fastForward(DASHBOARD_REFRESH_MS);
        await refreshed;
      }
    };
    /** A page whose timers the test may move on (Playwright's clock; time still flows). */
    const pageWithClock = async () => {
      const page = await newPage(browser, problems);
      await page.clock.install();
      return page;
    };

    it('shows a viewer what it may read, says what it may not, and never collects a 403', async () => {
      await request(gateway.url)
        .post('/v1/agent/run')
        .set(as(ROOT))
        .send({ tenant_id: TENANT, agent: 'refund', prompt: 'order 9', run_id: 'page-viewer' })
        .expect(202);
      await request(gateway.url)
        .post('/v1/board/cards')
        .set(as(ROOT))
        .send({ tenant_id: TENANT, title: 'Read by the viewer' })
        .expect(201);
      const page = await pageWithClock();
      const answers = recordAnswers(page);
      await page.goto(`${gateway.url}/studio`);
      await page.fill('#key', VIEWER);
      await page.fill('#tenant', TENANT);
      await page.click('#show');
      const loop = page.locator('#loops-body tr[data-run-id="page-viewer"][data-status="paused"]');
      await loop.waitFor(WAIT);
      expect(await loop.locator('button').count()).toBe(0);
      expect(await page.locator('#loops-note').innerText()).toBe(
        'this key cannot approve or deny (approve:*)',
      );
      // The viewer reads the board now.
      await page
        .locator('#board [data-column="todo"]')
        .getByText('Read by the viewer')
        .waitFor(WAIT);
      await refreshes(page, 3);
      await expectRenderedScreenshot(page, 'dashboard-viewer');

      await loop.locator('a[data-action="open"]').click();
      await page.locator('#run[data-run-id="page-viewer"][data-status="paused"]').waitFor(WAIT);
      expect(await page.locator('#run-may').innerText()).toBe(
        'On this run, this key cannot approve or deny (approve:*); this key cannot start or cancel runs (runs:write).',
      );
      expect(await page.locator('#run-approve').isVisible()).toBe(false);
      expect(await page.locator('#run-cancel').isVisible()).toBe(false);
      await page
        .locator('#run-audit-note', {
          hasText: 'this key cannot read the audit trail (audit:read)',
        })
        .waitFor(WAIT);
      await page.locator('#run-spans tr[data-span="graph.step look"]').waitFor(WAIT);
      await page.locator('#run-graph g.node[data-node="pay"][data-waiting="true"]').waitFor(WAIT);

      await page.click('nav a[data-route="playground"]');
      await page
        .locator('#play-note', { hasText: 'this key cannot start or cancel runs (runs:write)' })
        .waitFor(WAIT);
      expect(await page.locator('#play-form').isVisible()).toBe(false);

      await page.click('nav a[data-route="dashboard"]');
      await refreshes(page, 2);
      expect(answers.filter((answer) => /^40[13] /.test(answer))).toEqual([]);
      expect(answers.filter((answer) => answer.includes('/v1/audit'))).toEqual([]);
      expect(answers.filter((answer) => answer.endsWith('GET /v1/whoami'))).toEqual([
        '200 GET /v1/whoami',
      ]);
      await page.close();
    });

    it('tells a key without board:read so, and never asks for the board', async () => {
      const page = await pageWithClock();
      const answers = recordAnswers(page);
      await page.goto(`${gateway.url}/studio`);
      await page.fill('#key', READER);
      await page.fill('#tenant', TENANT);
      await page.click('#show');
      await page
        .locator('#board-note', { hasText: 'this key cannot read the board (board:read)' })
        .waitFor(WAIT);
      await refreshes(page, 3);
      expect(answers.filter((answer) => answer.includes('/v1/board'))).toEqual([]);
      expect(answers.filter((answer) => /^40[13] /.test(answer))).toEqual([]);
      expect(await page.locator('#whoami').innerText()).toBe('Key read · tenant acme · reader');
      await page.close();
    });

    it('ran without script errors or Content-Security-Policy violations', () => {
      expect(problems).toEqual([]);
    });
  },
);
