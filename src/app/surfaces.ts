/** The HTTP surfaces this build mounts, as reported by GET /info. */
export const SURFACES: Readonly<Record<string, string>> = {
  liveness: '/healthz',
  readiness: '/readyz',
  version: '/health',
  info: '/info',
};
