import type { Tool, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { ToolContract } from '../tools/tool-catalog.service.js';

interface Presentation {
  title: string;
  annotations: ToolAnnotations;
}

/**
 * What the gateway knows about its built-ins beyond their contracts: none changes anything or
 * reaches outside the process. (HTTP tools get no hints: the gateway cannot know what an
 * endpoint does, and MCP's defaults assume the worst.)
 */
const BUILTIN_PRESENTATION: Readonly<Record<string, Presentation>> = {
  echo: {
    title: 'Echo',
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  },
  current_time: {
    title: 'Current time',
    annotations: { readOnlyHint: true, idempotentHint: false, openWorldHint: false },
  },
  calculator: {
    title: 'Calculator',
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  },
};

/**
 * The contract's schema as MCP's `inputSchema`, whose `properties` must be objects: a boolean
 * subschema (valid JSON Schema) becomes its object equivalent, `true` → `{}`, `false` →
 * `{"not": {}}`, so a client's result validation does not throw away the whole list.
 */
function inputSchema(parameters: ToolContract['parameters']): Tool['inputSchema'] {
  const { properties, ...rest } = parameters;
  if (properties === undefined) return { ...rest, type: 'object' };
  const objects: Record<string, object> = {};
  for (const [name, schema] of Object.entries(properties)) {
    if (schema !== null && typeof schema === 'object') objects[name] = schema;
    else objects[name] = schema === false ? { not: {} } : {};
  }
  return { ...rest, type: 'object', properties: objects };
}

/** A tool contract as MCP's `tools/list` entry; `inputSchema` is the contract's `parameters`. */
export function toMcpTool(tool: ToolContract): Tool {
  const presentation = tool.builtin ? BUILTIN_PRESENTATION[tool.name] : undefined;
  return {
    name: tool.name,
    ...(presentation ? { title: presentation.title } : {}),
    description: tool.description,
    inputSchema: inputSchema(tool.parameters),
    ...(presentation
      ? { annotations: { title: presentation.title, ...presentation.annotations } }
      : {}),
  };
}
