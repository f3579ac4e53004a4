/** The HTTP surfaces this build mounts, as reported by GET /info. */
export const SURFACES: Readonly<Record<string, string>> = {
  liveness: '/healthz',
  readiness: '/readyz',
  version: '/health',
  info: '/info',
  agent_run: '/v1/agent/run',
  tools: '/v1/tools/{toolset}/{name}',
  toolsets: '/v1/toolsets',
  agents: '/v1/agents/{name}',
  runs: '/v1/runs/{run_id}',
  sessions: '/v1/sessions/{session_id}',
  audit: '/v1/audit',
  board: '/v1/board',
  mcp: '/mcp/',
  mcp_health: '/mcp/health',
  metrics: '/metrics',
};
