import type { JsonValue } from '../platform/state/state-store.js';

/** MCP's tool annotations: hints about what a tool does, for clients that present tools. */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** An icon a client may show for the tool (MCP `icons`). */
export interface ToolIcon {
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: 'light' | 'dark';
}

/**
 * How a registered HTTP tool presents itself to MCP clients, as its tenant described it: a
 * title, annotations, icons, and the JSON Schema of its structured result.
 */
export interface ToolPresentation {
  title?: string;
  annotations?: ToolAnnotations;
  icons?: ToolIcon[];
  outputSchema?: { [key: string]: JsonValue };
}

const ANNOTATION_FLAGS = [
  'readOnlyHint',
  'destructiveHint',
  'idempotentHint',
  'openWorldHint',
] as const;

function isObject(value: unknown): value is { [key: string]: JsonValue } {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Keeps the well-formed parts of a stored presentation (another version may have written it). */
export function parsePresentation(stored: { [key: string]: JsonValue }): ToolPresentation {
  const presentation: ToolPresentation = {};
  if (typeof stored.title === 'string') presentation.title = stored.title;
  if (isObject(stored.annotations)) {
    const source = stored.annotations;
    const annotations: ToolAnnotations = {};
    if (typeof source.title === 'string') annotations.title = source.title;
    for (const flag of ANNOTATION_FLAGS) {
      if (typeof source[flag] === 'boolean') annotations[flag] = source[flag];
    }
    presentation.annotations = annotations;
  }
  if (Array.isArray(stored.icons)) {
    presentation.icons = stored.icons.filter(
      (icon): icon is ToolIcon & { [key: string]: JsonValue } =>
        isObject(icon) && typeof icon.src === 'string',
    );
  }
  if (isObject(stored.outputSchema)) presentation.outputSchema = stored.outputSchema;
  return presentation;
}
