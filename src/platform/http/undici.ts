import { LazyModule } from '../lazy/lazy-module.js';

/**
 * undici (`request`, `fetch`, `Agent`), imported with the first outgoing call (a model endpoint,
 * an HTTP tool, a webhook, an upstream MCP server or remote agent): a gateway that answers with
 * the echo provider and built-in tools never makes one, and the package is a hundred modules.
 * Values only through this; types are imported from 'undici' directly.
 */
export const undici = new LazyModule<typeof import('undici')>('undici', () => import('undici'));
