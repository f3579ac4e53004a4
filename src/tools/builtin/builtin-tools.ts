import { Injectable } from '@nestjs/common';
import type { ArgumentsValidator } from '../schema-validator.js';
import { ToolSchemas } from '../tool-schemas.js';
import { MAX_TOOLS_PER_TOOLSET, isName, isToolName } from '../tool.limits.js';
import type { BuiltinTool, BuiltinToolset } from './builtin-tool.types.js';
import { DEFAULT_BUILTINS } from './default-toolset.js';

export type {
  BuiltinTool,
  BuiltinToolContext,
  BuiltinToolset,
  ToolResult,
} from './builtin-tool.types.js';

export type CompiledBuiltinTool = BuiltinTool & { validate: ArgumentsValidator };

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    Object.values(value).forEach(deepFreeze);
    Object.freeze(value);
  }
  return value;
}

/**
 * The built-in toolsets: `default` (echo, current_time, calculator) and whatever feature modules
 * register at startup (the board's `board`), so tools/ never depends on those modules. Code, not
 * state: every tenant has them without any registration, and tenants cannot replace or delete
 * them. Schemas are compiled once, on their first use (ToolExecutor loads the validator).
 */
@Injectable()
export class BuiltinTools {
  private readonly toolsets = new Map<string, Map<string, CompiledBuiltinTool>>();

  constructor(private readonly schemas: ToolSchemas) {
    this.register(DEFAULT_BUILTINS);
  }

  /** Adds a built-in toolset; call it from a provider's constructor or `onModuleInit`. */
  register(toolset: BuiltinToolset): void {
    if (!isName(toolset.name)) throw new Error(`invalid built-in toolset name "${toolset.name}"`);
    if (this.toolsets.has(toolset.name)) {
      throw new Error(`built-in toolset "${toolset.name}" is registered twice`);
    }
    if (toolset.tools.length > MAX_TOOLS_PER_TOOLSET) {
      throw new Error(`built-in toolset "${toolset.name}" has too many tools`);
    }
    const tools = new Map<string, CompiledBuiltinTool>();
    for (const tool of toolset.tools) {
      const { name } = tool.spec;
      if (!isToolName(name) || tools.has(name)) {
        throw new Error(`invalid or repeated tool name "${name}" in toolset "${toolset.name}"`);
      }
      // Frozen: the specs are handed to every caller (and on to model providers) by reference.
      deepFreeze(tool.spec);
      if (tool.hints) deepFreeze(tool.hints);
      tools.set(name, { ...tool, validate: this.schemas.onFirstUse(tool.spec.parameters) });
    }
    this.toolsets.set(toolset.name, tools);
  }

  /** Names of the built-in toolsets, sorted. */
  names(): string[] {
    return [...this.toolsets.keys()].sort();
  }

  has(toolset: string): boolean {
    return this.toolsets.has(toolset);
  }

  /** The tools of a built-in toolset in their declared order; empty for any other toolset. */
  tools(toolset: string): CompiledBuiltinTool[] {
    return [...(this.toolsets.get(toolset)?.values() ?? [])];
  }

  get(toolset: string, name: string): CompiledBuiltinTool | undefined {
    return this.toolsets.get(toolset)?.get(name);
  }
}
