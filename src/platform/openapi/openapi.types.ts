/**
 * The part of an OpenAPI 3.1 document the gateway's generator writes (not the whole
 * specification). Schemas are JSON Schema 2020-12 objects, kept loosely typed: they come from
 * class-validator metadata and from the features' own response schemas.
 */
export type JsonSchema = { [keyword: string]: unknown };

export const HTTP_METHODS = [
  'get',
  'put',
  'post',
  'delete',
  'options',
  'head',
  'patch',
  'trace',
] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export interface OpenApiParameter {
  name: string;
  in: 'query' | 'path' | 'header' | 'cookie';
  required?: boolean;
  description?: string;
  schema?: JsonSchema;
}

export interface OpenApiMediaType {
  schema?: JsonSchema;
}

export interface OpenApiResponse {
  description: string;
  headers?: Record<string, { description?: string; schema?: JsonSchema }>;
  content?: Record<string, OpenApiMediaType>;
}

export type SecurityRequirement = Record<string, string[]>;

export interface OpenApiOperation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: OpenApiParameter[];
  requestBody?: {
    required?: boolean;
    description?: string;
    content: Record<string, OpenApiMediaType>;
  };
  responses: Record<string, OpenApiResponse | { $ref: string }>;
  security?: SecurityRequirement[];
  [extension: `x-${string}`]: unknown;
}

export type OpenApiPathItem = { [method in HttpMethod]?: OpenApiOperation } & {
  [other: string]: unknown;
};

export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; description?: string };
  paths: Record<string, OpenApiPathItem>;
  components: {
    schemas: Record<string, JsonSchema>;
    responses?: Record<string, OpenApiResponse>;
    securitySchemes?: Record<string, JsonSchema>;
  };
  security?: SecurityRequirement[];
  tags?: Array<{ name: string; description?: string }>;
  [other: string]: unknown;
}

/** Every operation of the document with its path and method. */
export function* operationsOf(
  document: OpenApiDocument,
): Generator<{ path: string; method: HttpMethod; operation: OpenApiOperation }> {
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (operation) yield { path, method, operation };
    }
  }
}
