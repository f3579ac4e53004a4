import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, type Page, chromium } from 'playwright-core';
import request from 'supertest';
import { type OpenApiDocument, operationsOf } from '../src/platform/openapi/openapi.types.js';
import { decodePng } from './support/png.js';
import { gatewayForSuite } from './support/suite.js';

// /docs and the landing page in a real browser: Debian's `chromium` driven by playwright-core,
// as the studio page test does. CI installs it (.ci/run); elsewhere the browser part is skipped
// with a note.
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
const IN_CI = process.env.CI === 'true' || process.env.CI === '1';
if (!HAVE_CHROMIUM && !IN_CI) {
  process.stderr.write(
    `docs-page.e2e-spec: browser tests skipped, no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)\n`,
  );
}

const ROOT = 'docs-page-root-key';
const LINKS = ['/docs', '/openapi.json', '/studio', '/healthz', '/readyz', '/info', '/metrics'];

describe('the landing page', () => {
  const gateway = gatewayForSuite('sqlite', { SVC_API_KEY: ROOT });

  it('is public HTML that links the docs, the studio and the probes, and every link answers', async () => {
    const res = await request(gateway.url).get('/').expect(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toMatch(/default-src 'none'/);
    expect(res.headers['x-frame-options']).toBe('DENY');
    const links = [...res.text.matchAll(/href="([^"]+)"/g)].map((match) => match[1]);
    expect(links).toEqual(LINKS);
    for (const link of links) {
      const answer = await request(gateway.url).get(link).set('Authorization', `Bearer ${ROOT}`);
      expect({ link, status: answer.status }).toEqual({ link, status: 200 });
    }
  });

  it('serves only the docs page files it lists', async () => {
    const page = await request(gateway.url).get('/docs').expect(200);
    expect(page.headers['content-security-policy']).toMatch(/script-src 'self'/);
    const assets = [...page.text.matchAll(/(?:href|src)="([^"]+)"/g)].map((match) => match[1]);
    expect(assets.sort()).toEqual([
      '/docs/docs.js',
      '/docs/favicon-32x32.png',
      '/docs/swagger-ui-bundle.js',
      '/docs/swagger-ui.css',
    ]);
    for (const asset of assets) await request(gateway.url).get(asset).expect(200);
    const other = await request(gateway.url).get('/docs/index.html').expect(404);
    expect(other.headers['content-type']).toMatch(/^application\/problem\+json/);
  });
});

(HAVE_CHROMIUM || IN_CI ? describe : describe.skip)('/docs and / in Chromium', () => {
  const gateway = gatewayForSuite('sqlite', { SVC_API_KEY: ROOT });
  let browser: Browser;
  let screenshots: string;

  beforeAll(async () => {
    if (!HAVE_CHROMIUM) {
      throw new Error(`no Chromium at ${CHROMIUM}: CI must install Debian's chromium (.ci/run)`);
    }
    screenshots = mkdtempSync(join(tmpdir(), 'svc-docs-page-'));
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      // Tests run as root, where Chromium's sandbox cannot start.
      args: ['--no-sandbox'],
    });
  });

  afterAll(async () => {
    await browser?.close();
  });

  /** A page that records console errors, page errors and every request to another origin. */
  async function open(path: string): Promise<{ page: Page; problems: string[] }> {
    const problems: string[] = [];
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    // A missing element fails its step, naming it, well within the test's own timeout.
    page.setDefaultTimeout(10_000);
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    page.on('request', (sent) => {
      const url = new URL(sent.url());
      if (url.origin !== gateway.url && url.protocol !== 'data:') {
        problems.push(`request to ${sent.url()}`);
      }
    });
    await page.goto(`${gateway.url}${path}`);
    return { page, problems };
  }

  it('renders every operation of the description from local files only', async () => {
    const document = (await request(gateway.url).get('/openapi.json').expect(200))
      .body as OpenApiDocument;
    const operations = [...operationsOf(document)].length;
    const { page, problems } = await open('/docs');
    const blocks = page.locator('.opblock');
    await blocks.first().waitFor({ state: 'visible', timeout: 15_000 });
    expect(await blocks.count()).toBe(operations);
    expect(await page.locator('.info .title').innerText()).toContain('svc-gateway');
    const run = page.locator('.opblock-post', { hasText: '/v1/agent/run' });
    expect(await run.locator('.opblock-summary-description').innerText()).toBe('Run an agent');
    // An operation opens on its request body, read from the DTO, and its responses.
    await run.locator('.opblock-summary').click();
    await run.locator('.opblock-body').waitFor({ state: 'visible' });
    await run.getByText('Schema', { exact: true }).first().click();
    const body = await run.locator('.opblock-section-request-body').innerText();
    expect(body).toContain('tenant_id');
    expect(body).toContain('multitask');
    const responses = await run.locator('.responses-table').first().innerText();
    expect(responses).toContain('"run_id"');
    expect(responses).toContain('"pending_node"');
    // The Authorize dialog offers both ways of sending the key.
    await page.click('.btn.authorize');
    await page.locator('.auth-container').first().waitFor({ state: 'visible' });
    const schemes = await page.locator('.auth-container h4').allInnerTexts();
    expect(schemes.join(' ')).toMatch(/bearer/);
    expect(schemes.join(' ')).toMatch(/apiKey/);
    await page.keyboard.press('Escape');

    const png = await page.screenshot();
    writeFileSync(join(screenshots, 'docs.png'), png);
    const image = decodePng(png);
    expect(png.length).toBeGreaterThan(10_000);
    expect(image).toMatchObject({ width: 1280, height: 900 });
    expect(image.colors).toBeGreaterThan(50);
    expect(image.inked).toBeGreaterThan(0.02);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('calls this gateway from "Try it out" with the key given to Authorize', async () => {
    const { page, problems } = await open('/docs');
    await page.click('.btn.authorize');
    const bearer = page.locator('.auth-container', { hasText: 'bearer' });
    await bearer.locator('input').fill(ROOT);
    await bearer.locator('button.authorize').click();
    await page.click('.btn-done');
    const info = page.locator('#operations-Health-HealthController_info');
    await info.locator('.opblock-summary').click();
    await info.locator('.try-out__btn').click();
    await info.locator('.execute').click();
    const status = info.locator('.live-responses-table tbody .response-col_status').first();
    await status.waitFor({ state: 'visible' });
    expect((await status.innerText()).trim()).toBe('200');
    expect(await info.locator('.live-responses-table').innerText()).toContain('svc-gateway');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('shows the landing page under its own strict policy', async () => {
    const { page, problems } = await open('/');
    expect(await page.locator('h1').innerText()).toBe('svc-gateway');
    // The inline style is allowed by its hash: a refused one would leave the default margins.
    expect(await page.evaluate('getComputedStyle(document.body).maxWidth')).toBe('640px');
    const hrefs: Array<string | null> = [];
    for (const anchor of await page.locator('a').all())
      hrefs.push(await anchor.getAttribute('href'));
    expect(hrefs).toEqual(LINKS);
    await page.click('a[href="/docs"]');
    await page.locator('.opblock').first().waitFor({ state: 'visible', timeout: 15_000 });
    expect(problems).toEqual([]);
    await page.close();
  });
});
