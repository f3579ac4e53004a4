import type { JsonSchema } from './openapi.types.js';

/**
 * The three @nestjs/swagger decorators the controllers use, writing the same metadata under the
 * same keys (`swagger/apiOperation`, `swagger/apiParameters`) as the library's own, so
 * SwaggerModule reads them when the API description is built. They live here because importing
 * anything from @nestjs/swagger loads all of it (es-toolkit's compat build, the explorers, the
 * document builder: a few hundred modules and a noticeable part of the start), which only the
 * first `GET /openapi.json` needs. api-decorators.spec.ts checks they match the library's.
 */
export const SWAGGER_METADATA = {
  API_OPERATION: 'swagger/apiOperation',
  API_PARAMETERS: 'swagger/apiParameters',
} as const;

export interface ApiOperationOptions {
  summary?: string;
  description?: string;
  operationId?: string;
  deprecated?: boolean;
  tags?: string[];
}

export interface ApiBodyOptions {
  type?: unknown;
  schema?: JsonSchema;
  description?: string;
  required?: boolean;
  isArray?: boolean;
}

export interface ApiParamOptions {
  name: string;
  description?: string;
  required?: boolean;
  schema?: JsonSchema;
  type?: unknown;
  example?: unknown;
}

/** `value` without its undefined fields (the library's `pickBy(value, negate(isUndefined))`). */
function defined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(value).filter(([, field]) => field !== undefined),
  ) as Partial<T>;
}

/** Appends one parameter to the handler's `swagger/apiParameters`, as the library does. */
function parameterDecorator(parameter: object, initial: object): MethodDecorator {
  return (_target, _key, descriptor) => {
    const handler = descriptor.value as object;
    const parameters = (Reflect.getMetadata(SWAGGER_METADATA.API_PARAMETERS, handler) ??
      []) as object[];
    Reflect.defineMetadata(
      SWAGGER_METADATA.API_PARAMETERS,
      [...parameters, { ...initial, ...defined(parameter) }],
      handler,
    );
    return descriptor;
  };
}

/** `@ApiOperation`: the summary and description of a route. */
export function ApiOperation(options: ApiOperationOptions): MethodDecorator {
  const metadata = defined({ summary: '', ...options });
  return (_target, _key, descriptor) => {
    const handler = descriptor.value as object;
    const previous = Reflect.getMetadata(SWAGGER_METADATA.API_OPERATION, handler) as
      object | undefined;
    Reflect.defineMetadata(SWAGGER_METADATA.API_OPERATION, { ...previous, ...metadata }, handler);
    return descriptor;
  };
}

/** `@ApiBody`: the body of a route that reads it itself (a DTO class or a JSON Schema). */
export function ApiBody(options: ApiBodyOptions): MethodDecorator {
  const input = options.type;
  const isArray = input && !options.isArray ? Array.isArray(input) : options.isArray;
  const type = Array.isArray(input) && !options.isArray ? (input as unknown[])[0] : input;
  return parameterDecorator(
    { in: 'body', ...options, type, isArray },
    { type: String, required: true },
  );
}

/** `@ApiParam`: a path parameter the route's own decorators do not name. */
export function ApiParam(options: ApiParamOptions): MethodDecorator {
  const { name, ...rest } = options;
  return parameterDecorator({ name, in: 'path', ...rest }, { name: '', required: true });
}
