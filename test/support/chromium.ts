import { describe, expect } from '@jest/globals';
import { existsSync, writeFileSync } from 'node:fs';
import { type Browser, type Page, chromium } from 'playwright-core';
import { decodePng } from './png.js';

/**
 * Browser tests run Debian's `chromium` through playwright-core (no downloaded browser). CI
 * installs it (.ci/run) and a missing browser fails there; elsewhere a suite is skipped with a
 * note naming it.
 */
export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
const IN_CI = process.env.CI === 'true' || process.env.CI === '1';

/** `describe` when Chromium can run (or in CI, where its absence fails); else skipped, said once. */
export function describeInChromium(file: string): typeof describe | typeof describe.skip {
  if (HAVE_CHROMIUM || IN_CI) return describe;
  process.stderr.write(
    `${file}: skipped, no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)\n`,
  );
  return describe.skip;
}

export function launchChromium(): Promise<Browser> {
  if (!HAVE_CHROMIUM) {
    throw new Error(`no Chromium at ${CHROMIUM}: CI must install Debian's chromium (.ci/run)`);
  }
  // Tests run as root, where Chromium's sandbox cannot start.
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
}

export const VIEWPORT = { width: 1280, height: 900 };

/**
 * A new page whose script errors, console errors and Content-Security-Policy violations are
 * added to `problems`. A refused call is not one: the page says so itself, and the browser's
 * own "Failed to load resource" line about it is left out.
 */
export async function newPage(browser: Browser, problems: string[]): Promise<Page> {
  const page = await browser.newPage({ viewport: VIEWPORT });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
      problems.push(`console: ${message.text()}`);
    }
  });
  return page;
}

/**
 * A screenshot of `page` that shows a rendered page, not a blank one: the viewport's size, many
 * colours, a fair share of non-background pixels. STUDIO_SCREENSHOT_DIR=<dir> keeps it as
 * <dir>/<name>.png, with the whole page as <name>-full.png.
 */
export async function expectRenderedScreenshot(page: Page, name: string): Promise<void> {
  const png = await page.screenshot();
  const dir = process.env.STUDIO_SCREENSHOT_DIR;
  if (dir) {
    writeFileSync(`${dir}/${name}.png`, png);
    writeFileSync(`${dir}/${name}-full.png`, await page.screenshot({ fullPage: true }));
  }
  const image = decodePng(png);
  expect(png.length).toBeGreaterThan(10_000);
  expect(image).toMatchObject(VIEWPORT);
  expect(image.colors).toBeGreaterThan(50);
  expect(image.inked).toBeGreaterThan(0.02);
}
