import { createHash } from 'node:crypto';
import { PACKAGE } from '../config/package-info.js';

const STYLE = `body { font: 16px/1.5 system-ui, sans-serif; max-width: 40rem; margin: 3rem auto; padding: 0 1rem; color: #1f2328; }
h1 { font-size: 1.6rem; margin-bottom: 0; }
p.version { color: #59636e; margin-top: 0; }
h2 { font-size: 1.1rem; margin-top: 2rem; }
li { margin: 0.3rem 0; }
code { font-size: 0.9em; }
.note { color: #59636e; font-size: 0.9em; }`;

/** Where the landing page points: what a person or a probe looks for first. */
export const LANDING_LINKS: ReadonlyArray<{
  section: string;
  href: string;
  text: string;
  note?: string;
}> = [
  {
    section: 'API',
    href: '/docs',
    text: 'API documentation',
    note: 'browsable, with "Try it out"',
  },
  { section: 'API', href: '/openapi.json', text: 'OpenAPI 3.1 description' },
  {
    section: 'API',
    href: '/studio',
    text: 'Studio',
    note: 'sessions, runs and the board; asks for a key',
  },
  { section: 'Operations', href: '/healthz', text: 'Liveness', note: '/healthz' },
  { section: 'Operations', href: '/readyz', text: 'Readiness', note: '/readyz' },
  {
    section: 'Operations',
    href: '/info',
    text: 'Build and configuration summary',
    note: '/info, needs a key',
  },
  {
    section: 'Operations',
    href: '/metrics',
    text: 'Prometheus metrics',
    note: '/metrics, needs a key unless SVC_METRICS_PUBLIC',
  },
];

function links(section: string): string {
  return LANDING_LINKS.filter((link) => link.section === section)
    .map(
      ({ href, text, note }) =>
        `      <li><a href="${href}">${text}</a>${note ? ` <span class="note">(${note})</span>` : ''}</li>`,
    )
    .join('\n');
}

/** The page at `/`: fixed text, made once; nothing from a request goes into it. */
export const LANDING_HTML = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${PACKAGE.name}</title>
    <style>${STYLE}</style>
  </head>
  <body>
    <h1>${PACKAGE.name}</h1>
    <p class="version">version ${PACKAGE.version}: tool-using AI agents for many tenants</p>
    <h2>API</h2>
    <ul>
${links('API')}
    </ul>
    <h2>Operations</h2>
    <ul>
${links('Operations')}
    </ul>
  </body>
</html>
`;

/** No script at all; the one inline style is allowed by its hash. */
export const LANDING_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`,
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');
