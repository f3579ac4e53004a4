import {
  HTTP_METHODS,
  type OpenApiDocument,
  type OpenApiParameter,
  operationsOf,
} from './openapi.types.js';

const METHODS: ReadonlySet<string> = new Set(HTTP_METHODS);

/**
 * What OpenAPI 3.1 requires beyond what @nestjs/swagger writes: a path item holds only the
 * methods 3.1 knows (an `@All` route is also listed under `search`); every `{name}` of a path
 * template is a required path parameter (a `{*rest}` wildcard, which spans segments, too:
 * the closest 3.1 can say), a string unless its DTO says more; a path parameter the template
 * does not name is dropped.
 */
export function conformTo31(document: OpenApiDocument): void {
  for (const item of Object.values(document.paths)) {
    for (const key of Object.keys(item)) {
      if (!METHODS.has(key) && key !== 'parameters' && !key.startsWith('x-')) delete item[key];
    }
  }
  for (const { path, operation } of operationsOf(document)) {
    const names = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
    const parameters = (operation.parameters ?? []).filter(
      (parameter) => parameter.in !== 'path' || names.includes(parameter.name),
    );
    for (const parameter of parameters) {
      if (parameter.in === 'path' && Object.keys(parameter.schema ?? {}).length === 0) {
        parameter.schema = { type: 'string' };
      }
    }
    for (const name of names) {
      if (parameters.some((p) => p.in === 'path' && p.name === name)) continue;
      const parameter: OpenApiParameter = {
        name,
        in: 'path',
        required: true,
        schema: { type: 'string' },
      };
      parameters.push(parameter);
    }
    operation.parameters = parameters;
  }
}

/** Drops the schema components nothing refers to (e.g. ones @nestjs/swagger left behind). */
export function pruneSchemas(document: OpenApiDocument): void {
  const { schemas } = document.components;
  const used = new Set<string>();
  const pending: unknown[] = [document.paths, document.components.responses];
  while (pending.length > 0) {
    const next = pending.pop();
    if (next === null || typeof next !== 'object') continue;
    for (const [key, value] of Object.entries(next)) {
      if (key === '$ref' && typeof value === 'string') {
        const name = /^#\/components\/schemas\/(.+)$/.exec(value)?.[1];
        if (name !== undefined && !used.has(name)) {
          used.add(name);
          pending.push(schemas[name]);
        }
      } else {
        pending.push(value);
      }
    }
  }
  for (const name of Object.keys(schemas)) if (!used.has(name)) delete schemas[name];
}
