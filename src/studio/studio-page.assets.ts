import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../platform/config/package-info.js';

/** Where the page's files live: `studio-ui/` beside package.json (from src/ and dist/ alike). */
export const STUDIO_UI_DIR = join(PACKAGE_ROOT, 'studio-ui');

const SCRIPT = 'text/javascript; charset=utf-8';

/** The page's JavaScript modules, each its own file under /studio/. */
const MODULES = [
  'studio.js',
  'api.js',
  'access.js',
  'dom.js',
  'dashboard.js',
  'run-view.js',
  'run-page.js',
  'timeline.js',
  'spans-table.js',
  'graph-view.js',
  'agents-page.js',
  'playground.js',
];

/** The page's files by URL path, with their media types. Nothing else under /studio is served. */
export const STUDIO_FILES: Readonly<Record<string, { file: string; type: string }>> = {
  '/studio': { file: 'index.html', type: 'text/html; charset=utf-8' },
  ...Object.fromEntries(MODULES.map((file) => [`/studio/${file}`, { file, type: SCRIPT }])),
  '/studio/studio.css': { file: 'studio.css', type: 'text/css; charset=utf-8' },
  '/studio/favicon.svg': { file: 'favicon.svg', type: 'image/svg+xml' },
};

/** The files below /studio/, as the controller's routes name them (`studio.js`). */
export const STUDIO_FILE_ROUTES: readonly string[] = Object.keys(STUDIO_FILES)
  .filter((path) => path.startsWith('/studio/'))
  .map((path) => path.slice('/studio/'.length));

export interface StudioAsset {
  body: Buffer;
  type: string;
}

/** Reads every file once; a missing folder gives an empty map (the page then answers 404). */
export function loadStudioAssets(dir = STUDIO_UI_DIR): Map<string, StudioAsset> {
  const assets = new Map<string, StudioAsset>();
  for (const [path, { file, type }] of Object.entries(STUDIO_FILES)) {
    const location = join(dir, file);
    if (existsSync(location)) assets.set(path, { body: readFileSync(location), type });
  }
  return assets;
}

/**
 * The page runs only its own script and style and talks only to this origin; it cannot be framed.
 * Data is put into the page with textContent, never as markup.
 */
export const STUDIO_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');
