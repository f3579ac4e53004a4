/**
 * Validates rendered Kubernetes objects against the Kubernetes OpenAPI schemas that the
 * `kubernetes-models` package compiles (ajv). Two things it adds to that package's checks:
 * - an object of an apiVersion/kind it has no model for is an error (never skipped), and so is a
 *   pre-release (alpha/beta) version: those have been removed or may be;
 * - strict fields, as `kubectl apply` does: the schemas allow unknown properties, so a misspelt
 *   field (`readinesProbe`) would pass. The compiled validator reads every property its schema
 *   knows, so each object is validated through proxies that note what it read; a key it never
 *   read is one the schema does not have.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const API_VERSION = /^([a-z0-9-]+(\.[a-z0-9-]+)*\/)?v[0-9]+$/;
const PRE_RELEASE = /^([a-z0-9-]+(\.[a-z0-9-]+)*\/)?v[0-9]+(alpha|beta)[0-9]+$/;
const KIND = /^[A-Z][A-Za-z0-9]*$/;
/** The API groups the package has models for (its `exports` map: `./apps/v1`, `./v1`, …). */
const MODEL_PATHS = new Set(
  Object.keys(require('kubernetes-models/package.json').exports).map((path) => path.slice(2)),
);

/** `Deployment/svc-gateway`: how problems name an object. */
export function objectName(object) {
  return `${object?.kind ?? '?'}/${object?.metadata?.name ?? '?'}`;
}

/** The model class of an apiVersion/kind, or a reason why there is none. */
async function modelOf(apiVersion, kind) {
  if (typeof apiVersion !== 'string' || typeof kind !== 'string' || !KIND.test(kind))
    return { reason: `apiVersion ${JSON.stringify(apiVersion)} kind ${JSON.stringify(kind)}` };
  if (PRE_RELEASE.test(apiVersion))
    return { reason: `${apiVersion} is a pre-release API version: use the GA one` };
  if (!API_VERSION.test(apiVersion) || !MODEL_PATHS.has(apiVersion))
    return { reason: `no schema for ${apiVersion} ${kind}` };
  const models = await import(`kubernetes-models/${apiVersion}`);
  const model = models[kind];
  if (typeof model !== 'function' || model.kind !== kind)
    return { reason: `no schema for ${apiVersion} ${kind}` };
  return { model };
}

/** A deep copy of `value` whose objects record each property read into `read`. */
function watched(value, path, keys, read) {
  if (Array.isArray(value))
    return value.map((item, i) => watched(item, `${path}[${i}]`, keys, read));
  if (value === null || typeof value !== 'object') return value;
  const copy = {};
  for (const [key, item] of Object.entries(value)) {
    const at = path ? `${path}.${key}` : key;
    keys.push(at);
    copy[key] = watched(item, at, keys, read);
  }
  return new Proxy(copy, {
    get(target, property, receiver) {
      if (typeof property === 'string') read.add(path ? `${path}.${property}` : property);
      return Reflect.get(target, property, receiver);
    },
  });
}

/** `/spec/ports/0/port` (ajv) → `spec.ports[0].port`, the form unknown fields are named in. */
function fieldPath(pointer) {
  return pointer
    .split('/')
    .slice(1)
    .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce(
      (path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path ? `${path}.${part}` : part),
      '',
    );
}

/**
 * Secret data as the API server reads it: its base64 decoder skips line breaks, and kustomize v5
 * wraps long values, which the schema's `byte` format would refuse.
 */
function asSubmitted(object) {
  if (object.kind !== 'Secret' || object.data === null || typeof object.data !== 'object')
    return object;
  const data = Object.fromEntries(
    Object.entries(object.data).map(([key, value]) => [
      key,
      typeof value === 'string' ? value.replace(/[\r\n]/g, '') : value,
    ]),
  );
  return { ...object, data };
}

/** Schema problems of one object, each a line naming the object and the field. */
export async function schemaProblems(object) {
  const name = objectName(object);
  if (object === null || typeof object !== 'object' || Array.isArray(object))
    return [`${name}: not an object`];
  const { model, reason } = await modelOf(object.apiVersion, object.kind);
  if (!model) return [`${name}: ${reason}`];
  const keys = [];
  const read = new Set();
  const problems = [];
  try {
    // The model's validate() checks `this`: give it the watched copy.
    model.prototype.validate.call(watched(asSubmitted(object), '', keys, read));
  } catch (error) {
    const errors = Array.isArray(error?.errors)
      ? error.errors
      : [{ instancePath: '', message: String(error) }];
    for (const { instancePath, message } of errors)
      problems.push(`${name}: ${fieldPath(instancePath) || '(object)'} ${message}`);
  }
  for (const key of keys) if (!read.has(key)) problems.push(`${name}: unknown field ${key}`);
  return problems;
}
