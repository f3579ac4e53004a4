import type { JSONValue, Tool } from '@modelcontextprotocol/server';
import type { ToolContract } from '../tools/tool-catalog.service.js';

/**
 * An object schema as MCP's `inputSchema` or `outputSchema`, whose `properties` must be
 * objects: a boolean subschema (valid JSON Schema) becomes its object equivalent, `true` → `{}`,
 * `false` → `{"not": {}}`, so a client's result validation does not throw away the whole list.
 */
function objectSchema(schema: { [key: string]: unknown }): Tool['inputSchema'] {
  const { properties, ...rest } = schema;
  if (properties === null || typeof properties !== 'object' || Array.isArray(properties)) {
    // Registration accepts only object schemas, whose `properties` is an object when present.
    return { ...rest, type: 'object' };
  }
  const objects: Record<string, JSONValue> = {};
  for (const [name, property] of Object.entries(properties)) {
    // Schemas are stored JSON.
    if (property !== null && typeof property === 'object') objects[name] = property as JSONValue;
    else objects[name] = property === false ? { not: {} } : {};
  }
  return { ...rest, type: 'object', properties: objects };
}

/**
 * A tool contract as MCP's `tools/list` entry; `inputSchema` is the contract's `parameters`.
 * Built-ins carry a title and annotations from their hints; HTTP tools what their tenant
 * registered (title, annotations, icons, output schema), upstream tools what their upstream
 * listed (the same four, held to the same rules), or nothing (MCP's defaults then assume the
 * worst).
 */
export function toMcpTool(tool: ToolContract): Tool {
  const hints = tool.hints;
  const presentation = tool.presentation;
  const title = presentation?.title ?? hints?.title;
  const annotations = presentation?.annotations ?? (hints ? builtinAnnotations(hints) : undefined);
  return {
    name: tool.name,
    ...(title === undefined ? {} : { title }),
    description: tool.description,
    inputSchema: objectSchema(tool.parameters),
    ...(presentation?.outputSchema
      ? { outputSchema: objectSchema(presentation.outputSchema) }
      : {}),
    ...(annotations ? { annotations } : {}),
    ...(presentation?.icons ? { icons: presentation.icons } : {}),
  };
}

function builtinAnnotations(hints: NonNullable<ToolContract['hints']>) {
  return {
    title: hints.title,
    readOnlyHint: hints.readOnly,
    // MCP defines destructiveHint only for tools that are not read-only.
    ...(hints.readOnly ? {} : { destructiveHint: hints.destructive }),
    idempotentHint: hints.idempotent,
    openWorldHint: hints.openWorld,
  };
}
