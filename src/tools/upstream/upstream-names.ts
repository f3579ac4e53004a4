import {
  MAX_DESCRIPTION,
  MAX_SCHEMA_BYTES,
  MAX_TOOLS_PER_TOOLSET,
  isToolName,
} from '../tool.limits.js';
import { ICON_SRC_PATTERN, MAX_ICONS, MAX_ICON_SRC } from '../dto/tool-presentation.dto.js';
import { type ToolPresentation, parsePresentation } from '../tool-presentation.js';
import type { JsonSchemaObject, ToolHints } from '../tool.types.js';
import type { JsonValue } from '../../platform/state/state-store.js';

/** What the gateway reads of an upstream's `tools/list` entry. */
export interface UpstreamTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: {
    title?: string;
    readOnlyHint?: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint?: boolean;
  };
  outputSchema?: Record<string, unknown>;
  icons?: Array<Record<string, unknown>>;
}

/** An upstream tool as the toolset offers it. */
export interface ExposedTool {
  /** The name in the toolset: prefix + the upstream's name. */
  name: string;
  /** The name at the upstream. */
  tool: string;
  description: string;
  parameters: JsonSchemaObject;
  hints?: ToolHints;
  /** What the upstream said of it for clients to show: title, annotations, icons, output schema. */
  presentation?: ToolPresentation;
}

/** An upstream tool the toolset does not offer, and why (shown in the toolset's description). */
export interface OmittedTool {
  tool: string;
  reason: string;
}

export interface ExposureRules {
  prefix: string;
  /** Upstream names to offer; null offers every one. */
  allow: readonly string[] | null;
}

export interface Exposure {
  exposed: ExposedTool[];
  omitted: OmittedTool[];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** MCP's defaults for what a tool leaves unsaid assume the worst (writes, destroys, open world). */
function hintsOf(tool: UpstreamTool): ToolHints | undefined {
  const annotations = tool.annotations;
  const title = tool.title ?? annotations?.title;
  if (!annotations && title === undefined) return undefined;
  return {
    title: title ?? tool.name,
    readOnly: annotations?.readOnlyHint ?? false,
    destructive: annotations?.destructiveHint ?? true,
    idempotent: annotations?.idempotentHint ?? false,
    openWorld: annotations?.openWorldHint ?? true,
  };
}

/**
 * How the upstream presents the tool, held to what a tenant could register for an HTTP tool:
 * icons only from https: or data: (a client fetches them, never the gateway), at most
 * MAX_ICONS; an output schema only when it is a bounded object schema.
 */
function presentationOf(tool: UpstreamTool): ToolPresentation | undefined {
  const { outputSchema } = tool;
  const usableOutput =
    isObject(outputSchema) &&
    (outputSchema.type === undefined || outputSchema.type === 'object') &&
    Buffer.byteLength(JSON.stringify(outputSchema)) <= MAX_SCHEMA_BYTES;
  const icons = (tool.icons ?? [])
    .filter(
      (icon) =>
        isObject(icon) &&
        typeof icon.src === 'string' &&
        icon.src.length <= MAX_ICON_SRC &&
        ICON_SRC_PATTERN.test(icon.src),
    )
    .slice(0, MAX_ICONS);
  // Parsed from JSON by the SDK, so JSON values; parsePresentation keeps the well-formed parts.
  const presentation = parsePresentation({
    ...(tool.title !== undefined && { title: tool.title }),
    ...(tool.annotations && { annotations: tool.annotations }),
    ...(icons.length > 0 && { icons: icons as JsonValue[] }),
    ...(usableOutput && { outputSchema: { ...outputSchema, type: 'object' } }),
  });
  return Object.keys(presentation).length > 0 ? presentation : undefined;
}

/** The schema as the toolset's contract, or why it cannot be one. */
function parametersOf(schema: unknown): JsonSchemaObject | string {
  if (!isObject(schema) || (schema.type !== undefined && schema.type !== 'object')) {
    return 'its input schema is not an object schema';
  }
  if (Buffer.byteLength(JSON.stringify(schema)) > MAX_SCHEMA_BYTES) {
    return `its input schema is larger than ${MAX_SCHEMA_BYTES} bytes`;
  }
  return { ...schema, type: 'object' };
}

/**
 * Which of an upstream's tools a toolset offers, under which names: the allow-list filters by
 * upstream name, the prefix goes in front, and a tool is left out (with the reason) when its
 * name would not be a valid tool name, is `taken` (built-ins, HTTP tools and earlier upstreams
 * win), its schema is unusable, or the toolset already offers `room` more tools. Marks the
 * names it uses in `taken`. Tools come out sorted by name, so listings are stable.
 */
export function exposeTools(
  tools: readonly UpstreamTool[],
  rules: ExposureRules,
  taken: Set<string>,
  room: number = MAX_TOOLS_PER_TOOLSET,
): Exposure {
  const allow = rules.allow && new Set(rules.allow);
  const exposed: ExposedTool[] = [];
  const omitted: OmittedTool[] = [];
  const offered = new Set<string>();
  const sorted = [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const tool of sorted) {
    offered.add(tool.name);
    if (allow && !allow.has(tool.name)) continue;
    const name = `${rules.prefix}${tool.name}`;
    const parameters = parametersOf(tool.inputSchema);
    const reason = !isToolName(name)
      ? `"${name}" is not a valid tool name (1 to 128 letters, digits, "_", "." or "-")`
      : taken.has(name)
        ? `"${name}" is already a tool of this toolset`
        : typeof parameters === 'string'
          ? parameters
          : exposed.length >= room
            ? `the toolset already offers ${MAX_TOOLS_PER_TOOLSET} tools`
            : null;
    if (reason !== null || typeof parameters === 'string') {
      omitted.push({ tool: tool.name, reason: reason ?? 'its input schema is unusable' });
      continue;
    }
    taken.add(name);
    const hints = hintsOf(tool);
    const presentation = presentationOf(tool);
    exposed.push({
      name,
      tool: tool.name,
      description: (tool.description ?? tool.title ?? '').slice(0, MAX_DESCRIPTION),
      parameters,
      ...(hints && { hints }),
      ...(presentation && { presentation }),
    });
  }
  for (const name of rules.allow ?? []) {
    if (!offered.has(name)) omitted.push({ tool: name, reason: 'the upstream does not offer it' });
  }
  return { exposed, omitted };
}
