import { Injectable } from '@nestjs/common';
import { ProblemException } from '../platform/http/problem.js';
import { BuiltinTools } from './builtin/builtin-tools.js';
import { isName } from './tool.limits.js';
import type { JsonSchemaObject, ToolHints, ToolSpec, ToolsetView } from './tool.types.js';
import type { ToolPresentation } from './tool-presentation.js';
import { type StoredTool, ToolsetRepository } from './toolset-repository.js';

/** A tool contract with where it runs: built in, or at a tenant's HTTP endpoint. */
export interface ToolContract extends ToolSpec {
  builtin: boolean;
  endpoint?: { url: string };
  /** How clients may present a built-in (MCP titles and annotations). */
  hints?: ToolHints;
  /** How a registered tool presents itself, as its tenant described it. */
  presentation?: ToolPresentation;
}

/** A toolset with everything needed to describe or run its tools. */
export interface ResolvedToolset {
  tenantId: string;
  toolset: string;
  version: number;
  tools: ToolContract[];
}

export interface ToolsetSummary {
  toolset: string;
  version: number;
  tools: number;
}

export function registeredContract(name: string, tool: StoredTool): ToolContract {
  const { title, annotations, icons, outputSchema } = tool;
  const presentation: ToolPresentation = {
    ...(title === undefined ? {} : { title }),
    ...(annotations === undefined ? {} : { annotations }),
    ...(icons === undefined ? {} : { icons }),
    ...(outputSchema === undefined ? {} : { outputSchema }),
  };
  return {
    name,
    description: tool.description,
    // Registration only stores schemas whose top-level type is "object".
    parameters: tool.parameters as JsonSchemaObject,
    builtin: false,
    endpoint: { url: tool.endpoint.url },
    ...(Object.keys(presentation).length > 0 ? { presentation } : {}),
  };
}

/**
 * What tools a tenant has: the built-in toolsets (`default`, `board`: their built-ins plus what
 * the tenant registered there; version 0 until the tenant changes it) and every toolset the
 * tenant created.
 */
@Injectable()
export class ToolCatalog {
  constructor(
    private readonly repository: ToolsetRepository,
    private readonly builtins: BuiltinTools,
  ) {}

  /** The toolset, or null when it does not exist for this tenant. */
  async find(tenantId: string, toolset: string): Promise<ResolvedToolset | null> {
    // A name that could never be registered is not worth a database round trip.
    if (!isName(toolset)) return null;
    const stored = await this.repository.read(tenantId, toolset);
    if (!stored && !this.builtins.has(toolset)) return null;
    const own = Object.entries(stored?.tools ?? {})
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([name, tool]) => registeredContract(name, tool));
    const builtins = this.builtins.tools(toolset).map(({ spec, hints }): ToolContract => ({
      ...spec,
      builtin: true,
      ...(hints && { hints }),
    }));
    return { tenantId, toolset, version: stored?.version ?? 0, tools: [...builtins, ...own] };
  }

  /** Like `find`; throws 404 `toolset-not-found` for a toolset the tenant does not have. */
  async describe(tenantId: string, toolset: string): Promise<ResolvedToolset> {
    const found = await this.find(tenantId, toolset);
    if (!found) {
      throw new ProblemException(
        404,
        `toolset "${toolset}" does not exist for tenant "${tenantId}"`,
        'toolset-not-found',
      );
    }
    return found;
  }

  /** The contracts a model is offered. Throws 404 `toolset-not-found`. */
  async view(tenantId: string, toolset: string): Promise<ToolsetView> {
    const found = await this.describe(tenantId, toolset);
    return {
      tenantId,
      toolset,
      version: found.version,
      tools: found.tools.map(({ name, description, parameters }) => ({
        name,
        description,
        parameters,
      })),
    };
  }

  /** Every toolset of the tenant (the built-in ones always), sorted by name. */
  async list(tenantId: string): Promise<ToolsetSummary[]> {
    const names = new Set([...(await this.repository.names(tenantId)), ...this.builtins.names()]);
    const toolsets = await Promise.all([...names].sort().map((name) => this.find(tenantId, name)));
    return toolsets
      .filter((found): found is ResolvedToolset => found !== null)
      .map(({ toolset, version, tools }) => ({ toolset, version, tools: tools.length }));
  }
}
