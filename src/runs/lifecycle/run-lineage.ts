import { AmbientSlot } from '../../platform/context/ambient-slot.js';

/**
 * How deep inside runs the code running now is: 0 for a person's request, 1 inside a run (its
 * model's tool calls, its graph steps) and inside any request a run's tool call made back to the
 * gateway. It follows the async context, so it reaches everything a run causes in this process
 * without being passed along (built-in tools, REST and MCP handlers, background work).
 */
const lineage = new AmbientSlot<number>('svc.run.lineage');

/**
 * How deep runs nest: a run a person starts is at depth 1, so it starts no runs. An agent never
 * starts agents (run_agent refuses inside a run, and AgentRunner refuses any run started from
 * one), whatever permissions the surrounding request carries, with auth on or off.
 */
export const MAX_RUN_DEPTH = 1;

export function runDepth(): number {
  return lineage.get() ?? 0;
}

/** True when a run started from here would nest deeper than MAX_RUN_DEPTH. */
export function tooDeepForRun(): boolean {
  return runDepth() + 1 > MAX_RUN_DEPTH;
}

/** Runs `work` as part of a run: one level deeper than the code that started it. */
export function insideRun<T>(work: () => T): T {
  return lineage.run(runDepth() + 1, work);
}

/**
 * Runs `work` (the rest of an HTTP request) at the depth of the request: a request this
 * deployment made itself (`fromThisDeployment`: it carries the deployment's mark, see
 * DeploymentMark) is one of its tool calls or deliveries coming back, made on a run's behalf
 * (with auth off, nothing else tells it from a person's request). Another deployment's calls,
 * another gateway's included, are a client's like any other.
 */
export function asRequest<T>(fromThisDeployment: boolean, work: () => T): T {
  return fromThisDeployment ? lineage.run(Math.max(runDepth(), 1), work) : work();
}
