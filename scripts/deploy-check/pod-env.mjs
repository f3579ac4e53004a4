/**
 * The environment a container gets, resolved from its `envFrom` ConfigMaps and Secrets and its
 * `env` entries as the kubelet does (`env` wins over `envFrom`, later sources over earlier). Each
 * variable says where it came from, so checks can tell a Secret from a ConfigMap.
 */
import { named } from './objects.mjs';

function decoded(secret) {
  const data = Object.fromEntries(
    Object.entries(secret.data ?? {}).map(([key, value]) => [
      key,
      Buffer.from(String(value), 'base64').toString('utf8'),
    ]),
  );
  return { ...data, ...(secret.stringData ?? {}) };
}

function source(objects, kind, name) {
  const object = named(objects, kind, name);
  if (!object) return undefined;
  return kind === 'Secret' ? decoded(object) : { ...(object.data ?? {}) };
}

/** `{ env: { NAME: { value, from: 'Secret/x' | 'ConfigMap/y' | 'literal' } }, problems }`. */
export function podEnv(container, objects) {
  const env = {};
  const problems = [];
  const missing = (kind, name) =>
    problems.push(`the container reads ${kind}/${name}, which the overlay does not make`);
  for (const entry of container.envFrom ?? []) {
    const [kind, ref] = entry.secretRef
      ? ['Secret', entry.secretRef]
      : ['ConfigMap', entry.configMapRef];
    const values = source(objects, kind, ref?.name);
    if (!values) {
      if (!ref?.optional) missing(kind, ref?.name);
      continue;
    }
    for (const [name, value] of Object.entries(values))
      env[`${entry.prefix ?? ''}${name}`] = { value, from: `${kind}/${ref.name}` };
  }
  for (const entry of container.env ?? []) {
    if (entry.value !== undefined || !entry.valueFrom) {
      env[entry.name] = { value: entry.value ?? '', from: 'literal' };
      continue;
    }
    const { secretKeyRef, configMapKeyRef } = entry.valueFrom;
    const [kind, ref] = secretKeyRef ? ['Secret', secretKeyRef] : ['ConfigMap', configMapKeyRef];
    if (!ref) {
      env[entry.name] = { value: '', from: 'field' };
      continue;
    }
    const values = source(objects, kind, ref.name);
    if (values?.[ref.key] !== undefined)
      env[entry.name] = { value: values[ref.key], from: `${kind}/${ref.name}` };
    else if (!ref.optional) missing(kind, `${ref.name} key ${ref.key}`);
  }
  return { env, problems };
}
