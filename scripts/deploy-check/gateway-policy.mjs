/**
 * The checks of one rendered overlay beyond its schemas: a gateway Deployment that Kubernetes can
 * run well (container-policy.mjs), its credentials from Secrets, a Service in front of it, and a
 * replica policy that fits its state backend.
 */
import { APP_PORT, containerProblems } from './container-policy.mjs';
import { byKind, named, portNumber, selects } from './objects.mjs';
import { podEnv } from './pod-env.mjs';

/** PostgreSQL's default max_connections: every replica's pool must fit in it. */
const PG_MAX_CONNECTIONS = 100;
const DEFAULT_POOL_SIZE = 10;
/** The PostgreSQL board's own pool (PG_POOL_SIZE in src/board/board-data-source.ts). */
const BOARD_POOL_SIZE = 4;

function gatewayOf(objects) {
  for (const deployment of byKind(objects, 'Deployment')) {
    const pod = deployment.spec?.template?.spec ?? {};
    const container = (pod.containers ?? []).find((entry) => entry.name === 'gateway');
    if (container) return { deployment, pod, container };
  }
  return undefined;
}

function fromSecret(env, name) {
  return env[name]?.from.startsWith('Secret/') ?? false;
}

/** SVC_API_KEY, SVC_STATE_DSN and the keys file come from Secrets; the ConfigMap is read. */
function credentials({ pod, container }, env, objects, backend) {
  const problems = [];
  if (!fromSecret(env, 'SVC_API_KEY')) problems.push('SVC_API_KEY must come from a Secret');
  if (backend === 'postgres' && !fromSecret(env, 'SVC_STATE_DSN'))
    problems.push('SVC_STATE_DSN must come from a Secret');
  const keysFile = env.SVC_KEYS_FILE?.value ?? '';
  const slash = keysFile.lastIndexOf('/');
  const mount = (container.volumeMounts ?? []).find(
    (entry) => entry.mountPath === keysFile.slice(0, slash),
  );
  const volume = (pod.volumes ?? []).find((entry) => entry.name === mount?.name);
  const secret = named(objects, 'Secret', volume?.secret?.secretName);
  const key = keysFile.slice(slash + 1);
  if (!secret || !(key in (secret.data ?? {}) || key in (secret.stringData ?? {})))
    problems.push(`SVC_KEYS_FILE (${keysFile || 'unset'}) must name a file of a mounted Secret`);
  if (!(container.envFrom ?? []).some((entry) => entry.configMapRef))
    problems.push('the container must read its settings from a ConfigMap (envFrom)');
  return problems;
}

function service({ deployment, container }, objects) {
  const labels = deployment.spec?.template?.metadata?.labels;
  const found = byKind(objects, 'Service').find((entry) => selects(entry.spec?.selector, labels));
  if (!found) return { problems: ['no Service selects the gateway pods'] };
  const targets = (found.spec?.ports ?? []).map((port) =>
    portNumber(port.targetPort ?? port.port, container),
  );
  return {
    service: found,
    problems: targets.includes(APP_PORT)
      ? []
      : [`Service/${found.metadata.name} must target port ${APP_PORT}`],
  };
}

/** Whoever sets the replica count: an HPA, or the Deployment (default 1). */
function replicaPolicy({ deployment }, objects, env, backend, front) {
  const labels = deployment.spec?.template?.metadata?.labels;
  const name = deployment.metadata?.name;
  const hpa = byKind(objects, 'HorizontalPodAutoscaler').find(
    (entry) =>
      entry.spec?.scaleTargetRef?.kind === 'Deployment' && entry.spec.scaleTargetRef.name === name,
  );
  const pdb = byKind(objects, 'PodDisruptionBudget').find((entry) =>
    selects(entry.spec?.selector, labels),
  );
  const replicas = deployment.spec?.replicas ?? 1;
  const problems = [];
  if (hpa && deployment.spec?.replicas !== undefined)
    problems.push('spec.replicas must be left out: the HorizontalPodAutoscaler owns the count');
  const maxReplicas = hpa ? hpa.spec.maxReplicas : replicas;
  if (maxReplicas <= 1) {
    if (backend === 'sqlite') {
      if (deployment.spec?.strategy?.type !== 'Recreate')
        problems.push(
          'a sqlite replica must be replaced (strategy Recreate), never rolled: one writer',
        );
      const data = deployment.spec?.template?.spec?.volumes?.find(
        (volume) => volume.name === 'data',
      );
      if (!data?.persistentVolumeClaim)
        problems.push('sqlite state must live on a PersistentVolumeClaim (the data volume)');
    }
    return { problems, replicas: { min: replicas, max: replicas, hpa: false, pdb: Boolean(pdb) } };
  }
  if (backend !== 'postgres')
    problems.push(
      `${maxReplicas} replicas need SVC_STATE_BACKEND=postgres (sqlite is one replica)`,
    );
  if (!pdb) problems.push('several replicas need a PodDisruptionBudget selecting the gateway pods');
  if (env.SVC_MCP_MODE?.value !== 'stateless' && front?.spec?.sessionAffinity !== 'ClientIP')
    problems.push(
      'several replicas behind a Service without session affinity need SVC_MCP_MODE=stateless',
    );
  const surge = Number(deployment.spec?.strategy?.rollingUpdate?.maxSurge ?? 1) || 1;
  const pool = Number(env.SVC_STATE_POOL_SIZE?.value || DEFAULT_POOL_SIZE);
  // Beside the state pool: the board's pool when it lives in PostgreSQL (the default there) and
  // the one connection that listens for notifications.
  const board = /^postgres(ql)?:/.test(env.SVC_BOARD_DB?.value ?? 'postgres:')
    ? BOARD_POOL_SIZE
    : 0;
  const perReplica = pool + board + 1;
  if ((maxReplicas + surge) * perReplica > PG_MAX_CONNECTIONS)
    problems.push(
      `(${maxReplicas} replicas + ${surge} surging) x ${perReplica} connections (SVC_STATE_POOL_SIZE ${pool}, board ${board}, listener 1) exceeds PostgreSQL's default ${PG_MAX_CONNECTIONS}`,
    );
  const min = hpa ? (hpa.spec.minReplicas ?? 1) : replicas;
  if (hpa && min < 2) problems.push('the HorizontalPodAutoscaler must keep at least 2 replicas');
  return { problems, replicas: { min, max: maxReplicas, hpa: Boolean(hpa), pdb: Boolean(pdb) } };
}

/** MCP clients inside the cluster use the Service's DNS names; the host check must allow them. */
function mcpHosts(env, front) {
  const listed = env.SVC_MCP_ALLOWED_HOSTS?.value;
  if (!listed || !front) return [];
  const hosts = new Set(listed.split(',').map((entry) => entry.trim()));
  if (hosts.has('*')) return [];
  const { name, namespace } = front.metadata;
  const wanted = namespace
    ? [name, `${name}.${namespace}.svc`, `${name}.${namespace}.svc.cluster.local`]
    : [name];
  const absent = wanted.filter((host) => !hosts.has(host));
  return absent.length > 0
    ? [`SVC_MCP_ALLOWED_HOSTS must list the Service's names: ${absent.join(', ')}`]
    : [];
}

function image(container) {
  const ref = container.image ?? '';
  const tag = ref.includes('@') ? 'digest' : /:([^/:]+)$/.exec(ref)?.[1];
  return tag && tag !== 'latest'
    ? []
    : [`image ${ref || '(none)'} must carry a version tag or digest`];
}

/**
 * `{ problems, summary }` for one overlay's objects. `summary` holds what the gateway's pod
 * gets (its environment and where each variable comes from) and its replica policy.
 */
export function gatewayProblems(objects) {
  const gateway = gatewayOf(objects);
  if (!gateway) return { problems: ['no Deployment runs a container named gateway'] };
  const at = `Deployment/${gateway.deployment.metadata?.name}`;
  const { env, problems: envProblems } = podEnv(gateway.container, objects);
  const backend = env.SVC_STATE_BACKEND?.value || 'sqlite';
  const front = service(gateway, objects);
  const shape = replicaPolicy(gateway, objects, env, backend, front.service);
  const problems = [
    ...envProblems,
    ...containerProblems(gateway.pod, gateway.container, env),
    ...credentials(gateway, env, objects, backend),
    ...image(gateway.container),
    ...shape.problems,
  ].map((problem) => `${at}: ${problem}`);
  problems.push(...front.problems, ...mcpHosts(env, front.service));
  const { container } = gateway;
  return {
    problems,
    summary: {
      deployment: at,
      backend,
      replicas: shape.replicas,
      args: container.args ?? [],
      probes: {
        startup: container.startupProbe?.httpGet?.path,
        liveness: container.livenessProbe?.httpGet?.path,
        readiness: container.readinessProbe?.httpGet?.path,
      },
      service: front.service && {
        name: front.service.metadata.name,
        namespace: front.service.metadata.namespace,
      },
      env,
    },
  };
}
