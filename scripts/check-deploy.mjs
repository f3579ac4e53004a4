#!/usr/bin/env node
/**
 * `npm run check:deploy`: renders every Kubernetes overlay under deploy/kubernetes (kubectl
 * kustomize), validates every object against the Kubernetes schemas (unknown kinds and fields
 * fail), and checks what the gateway needs of them (scripts/deploy-check/gateway-policy.mjs).
 * One line per overlay; exit 1 on any problem.
 *
 *   node scripts/check-deploy.mjs [--dir deploy/kubernetes] [--json]
 *
 * --json prints the result as JSON on stdout (progress stays on stderr), with a summary of
 * each overlay's gateway: its environment as the pod gets it (from the example secrets), probes,
 * Service and replicas. Without a renderer it fails in CI (CI=true) and skips with the reason
 * elsewhere.
 */
import { relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { gatewayProblems } from './deploy-check/gateway-policy.mjs';
import { materialize, overlaysOf, renderOverlay } from './deploy-check/render.mjs';
import { findRenderer } from './deploy-check/renderer.mjs';
import { objectName, schemaProblems } from './deploy-check/schema.mjs';

const DEFAULT_DIR = fileURLToPath(new URL('../deploy/kubernetes', import.meta.url));
const inCi = ['true', '1'].includes(process.env.CI ?? '');

async function checkOverlay(kubectl, overlay) {
  const rendered = renderOverlay(kubectl, overlay);
  if (rendered.error) return { objects: [], problems: [rendered.error] };
  const problems = [];
  for (const object of rendered.objects) problems.push(...(await schemaProblems(object)));
  const gateway = gatewayProblems(rendered.objects);
  problems.push(...gateway.problems);
  return { objects: rendered.objects.map(objectName), problems, gateway: gateway.summary };
}

/** What the set of overlays must offer together: the replicated shape with its PDB and HPA. */
function setProblems(results) {
  const replicated = results.some(({ gateway }) => gateway?.replicas?.hpa && gateway.replicas.pdb);
  return replicated
    ? []
    : ['no overlay runs several replicas with a PodDisruptionBudget and a HorizontalPodAutoscaler'];
}

async function main() {
  const { values } = parseArgs({ options: { dir: { type: 'string' }, json: { type: 'boolean' } } });
  const dir = resolve(values.dir ?? DEFAULT_DIR);
  const print = (result) =>
    values.json && process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  const log = (line) => process.stderr.write(`${line}\n`);

  const renderer = findRenderer({ ci: inCi, log });
  if (renderer.missing) {
    const line = `check-deploy: ${inCi ? 'cannot run in CI' : 'skipped'}: ${renderer.missing}`;
    log(line);
    print({ skipped: !inCi, error: line });
    return inCi ? 1 : 0;
  }
  const tree = materialize(dir);
  try {
    const overlays = overlaysOf(tree.dir);
    const results = [];
    for (const overlay of overlays) {
      const result = await checkOverlay(renderer.command, overlay);
      results.push({ overlay: relative(tree.dir, overlay), ...result });
    }
    const problems =
      overlays.length === 0 ? [`no overlays under ${dir}/overlays`] : setProblems(results);
    for (const { overlay, objects, problems: found } of results) {
      log(`${found.length === 0 ? 'ok  ' : 'FAIL'} ${overlay}: ${objects.length} objects`);
      for (const problem of found) log(`     ${problem}`);
    }
    for (const problem of problems) log(`FAIL ${problem}`);
    log(`check-deploy: rendered with kubectl ${renderer.version}`);
    print({ renderer: renderer.version, overlays: results, problems });
    return results.some((result) => result.problems.length > 0) || problems.length > 0 ? 1 : 0;
  } finally {
    tree.remove();
  }
}

process.exitCode = await main();
