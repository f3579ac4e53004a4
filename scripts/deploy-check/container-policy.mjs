/**
 * What the gateway's container must have to run well under Kubernetes, checked against what the
 * app does: it listens where its args say, answers /healthz (liveness: the process) and /readyz
 * (readiness: the state backend), drains for SVC_SHUTDOWN_TIMEOUT_MS on SIGTERM, and writes only
 * its data directory and /tmp.
 */
import { bytesOf, flagValue, portNumber } from './objects.mjs';

export const APP_PORT = 8080;
const PROBES = [
  ['startupProbe', '/healthz'],
  ['livenessProbe', '/healthz'],
  ['readinessProbe', '/readyz'],
];
const WRITABLE = ['/app/data', '/tmp'];
/** After the drain: releasing run leases and closing the database pool. */
const CLOSE_MARGIN_S = 5;
const DEFAULT_DRAIN_MS = 25_000;

function listening(container) {
  const args = [...(container.command ?? []), ...(container.args ?? [])];
  const problems = [];
  if (args[0] !== 'serve')
    problems.push(`args must start with serve (got ${JSON.stringify(args)})`);
  if (flagValue(args, '--host') !== '0.0.0.0') problems.push('args must bind --host 0.0.0.0');
  if (flagValue(args, '--port') !== String(APP_PORT))
    problems.push(`args must listen on --port ${APP_PORT}`);
  if (
    !(container.ports ?? []).some((port) => port.containerPort === APP_PORT && port.name === 'http')
  )
    problems.push(`ports must declare containerPort ${APP_PORT} named http`);
  return problems;
}

function probes(container) {
  const problems = [];
  for (const [field, path] of PROBES) {
    const get = container[field]?.httpGet;
    if (!get) problems.push(`${field} must be an httpGet of ${path}`);
    else if (get.path !== path) problems.push(`${field} must GET ${path} (got ${get.path})`);
    else if (portNumber(get.port, container) !== APP_PORT)
      problems.push(`${field} must use port ${APP_PORT} (got ${get.port})`);
  }
  return problems;
}

function resources(container, env) {
  const problems = [];
  for (const side of ['requests', 'limits'])
    for (const resource of ['cpu', 'memory'])
      if (container.resources?.[side]?.[resource] === undefined)
        problems.push(`resources.${side}.${resource} must be set`);
  const heapMb = /--max-old-space-size=(\d+)/.exec(env.NODE_OPTIONS?.value ?? '')?.[1];
  const limit = bytesOf(container.resources?.limits?.memory);
  if (heapMb !== undefined && limit !== undefined && Number(heapMb) * 2 ** 20 >= limit)
    problems.push(`NODE_OPTIONS --max-old-space-size=${heapMb} must stay below the memory limit`);
  return problems;
}

function security(pod, container) {
  const problems = [];
  const pick = (field) => container.securityContext?.[field] ?? pod.securityContext?.[field];
  const own = container.securityContext ?? {};
  if (pick('runAsNonRoot') !== true) problems.push('securityContext.runAsNonRoot must be true');
  const user = pick('runAsUser');
  if (!Number.isInteger(user) || user === 0)
    problems.push(
      'securityContext.runAsUser must be a numeric non-root user (the image says `node`)',
    );
  if (own.allowPrivilegeEscalation !== false)
    problems.push('securityContext.allowPrivilegeEscalation must be false');
  if (own.readOnlyRootFilesystem !== true)
    problems.push('securityContext.readOnlyRootFilesystem must be true');
  if (!(own.capabilities?.drop ?? []).includes('ALL'))
    problems.push('securityContext.capabilities.drop must include ALL');
  if (pick('seccompProfile')?.type !== 'RuntimeDefault')
    problems.push('securityContext.seccompProfile.type must be RuntimeDefault');
  if (pod.automountServiceAccountToken !== false)
    problems.push('automountServiceAccountToken must be false (the gateway never calls the API)');
  return problems;
}

function writableMounts(pod, container) {
  const problems = [];
  for (const path of WRITABLE) {
    const mount = (container.volumeMounts ?? []).find((entry) => entry.mountPath === path);
    const volume = (pod.volumes ?? []).find((entry) => entry.name === mount?.name);
    if (!mount || mount.readOnly || !(volume?.emptyDir || volume?.persistentVolumeClaim))
      problems.push(
        `${path} must be a writable emptyDir or claim (the root filesystem is read-only)`,
      );
  }
  return problems;
}

function shutdown(pod, container, env) {
  const sleep = container.lifecycle?.preStop?.exec?.command;
  const pauseS = sleep?.[0] === 'sleep' ? Number(sleep[1]) : NaN;
  if (!Number.isFinite(pauseS))
    return ['lifecycle.preStop must pause (exec sleep N) so endpoints go before the drain starts'];
  const drainMs = Number(env.SVC_SHUTDOWN_TIMEOUT_MS?.value || DEFAULT_DRAIN_MS);
  const needed = pauseS + Math.ceil(drainMs / 1000) + CLOSE_MARGIN_S;
  const grace = pod.terminationGracePeriodSeconds ?? 30;
  return grace >= needed
    ? []
    : [
        `terminationGracePeriodSeconds ${grace} must cover preStop ${pauseS} s + drain ${drainMs} ms + ${CLOSE_MARGIN_S} s`,
      ];
}

/** Problems of the gateway container in its pod spec, given its resolved environment. */
export function containerProblems(pod, container, env) {
  return [
    ...listening(container),
    ...probes(container),
    ...resources(container, env),
    ...security(pod, container),
    ...writableMounts(pod, container),
    ...shutdown(pod, container, env),
  ];
}
