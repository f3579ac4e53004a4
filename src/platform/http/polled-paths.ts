/**
 * Paths that orchestrators and scrapers poll every few seconds: the probes (`/healthz`,
 * `/readyz`, `/health`, and every surface's own `…/health`) and `/metrics`. Their requests are
 * measured (the request duration metric) but neither traced nor written to the access log,
 * which they would otherwise drown.
 */
export function isPolledPath(path: string): boolean {
  return (
    path === '/healthz' ||
    path === '/readyz' ||
    path === '/health' ||
    path === '/metrics' ||
    path.endsWith('/health')
  );
}
