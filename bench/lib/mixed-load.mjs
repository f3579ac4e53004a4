/**
 * Mixed load on one gateway: GET /info, the built-in tool call and an echo agent run at the same
 * time, one autocannon instance each with `connections` connections, for `seconds`. Used by the
 * memory part (RSS under load) and the soak (live heap after each step). Only counts are kept,
 * no latencies: in the soak autocannon shares the gateway's heap.
 */
import autocannon from 'autocannon';
import { AGENT_RUN, INFO, TOOL_CALL, requestFor } from './routes.mjs';
import { expectOk } from './targets.mjs';

/** The routes of the mixed load, by name. */
export const MIXED_ROUTES = { info: INFO, tool: TOOL_CALL, run: AGENT_RUN };

/** The mixed load's requests against `base`, each checked to answer 2xx once first. */
export async function mixedRequests(base) {
  const requests = {};
  for (const [name, route] of Object.entries(MIXED_ROUTES)) {
    requests[name] = requestFor(base, route);
    await expectOk(`mixed load ${name}`, requests[name]);
  }
  return requests;
}

function drive(request, connections, seconds) {
  return new Promise((resolve, reject) => {
    autocannon({ ...request, connections, duration: seconds }, (error, result) => {
      if (error) return reject(error);
      const { total: requests } = result.requests;
      const { non2xx, errors, timeouts } = result;
      resolve({ requests, reqPerSec: requests / seconds, non2xx, errors, timeouts });
    });
  });
}

/** Runs every request of `requests` ({ name: request }) at once; { name: counts }. */
export async function mixedLoad(requests, { connections, seconds }) {
  const names = Object.keys(requests);
  const results = await Promise.all(
    names.map((name) => drive(requests[name], connections, seconds)),
  );
  return Object.fromEntries(names.map((name, i) => [name, results[i]]));
}
