import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** A file the docs page is made of: its bytes and media type. */
export interface DocsAsset {
  body: Buffer;
  type: string;
}

const HTML = 'text/html; charset=utf-8';
const SCRIPT = 'text/javascript; charset=utf-8';

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>svc-gateway API</title>
    <link rel="icon" type="image/png" href="/docs/favicon-32x32.png" />
    <link rel="stylesheet" href="/docs/swagger-ui.css" />
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="/docs/swagger-ui-bundle.js"></script>
    <script src="/docs/docs.js"></script>
  </body>
</html>
`;

// Swagger UI on this gateway's own description. validatorUrl null: Swagger UI would otherwise
// send the document's address to validator.swagger.io; keys typed into Authorize stay in memory.
const INIT = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  validatorUrl: null,
  persistAuthorization: false,
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
});
`;

/** Files of swagger-ui-dist (an npm dependency) that the page loads, by their name under /docs. */
const SWAGGER_UI_FILES: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': SCRIPT,
  'favicon-32x32.png': 'image/png',
};

let loaded: ReadonlyMap<string, DocsAsset> | undefined;

/**
 * The page's files by URL path: its HTML and start script, and Swagger UI's files from the
 * installed swagger-ui-dist package, so the page loads nothing from elsewhere. Read on first
 * use and kept for the process (the bundle is about 1.5 MB).
 */
export function docsAssets(): ReadonlyMap<string, DocsAsset> {
  if (loaded) return loaded;
  const dir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const assets = new Map<string, DocsAsset>([
    ['/docs', { body: Buffer.from(PAGE), type: HTML }],
    ['/docs/docs.js', { body: Buffer.from(INIT), type: SCRIPT }],
  ]);
  for (const [file, type] of Object.entries(SWAGGER_UI_FILES)) {
    assets.set(`/docs/${file}`, { body: readFileSync(join(dir, file)), type });
  }
  loaded = assets;
  return assets;
}

/**
 * Only the page's own script and style files apply (Swagger UI sets styles through the DOM,
 * which a policy allows); its icons are data: images; "Try it out" talks to this origin only.
 * It cannot be framed.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');
