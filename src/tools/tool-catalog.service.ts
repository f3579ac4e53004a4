import { Injectable } from '@nestjs/common';
import { ProblemException } from '../platform/http/problem.js';
import { BuiltinTools } from './builtin/builtin-tools.js';
import { MAX_TOOLS_PER_TOOLSET, isName } from './tool.limits.js';
import type { JsonSchemaObject, ToolHints, ToolSpec, ToolsetView } from './tool.types.js';
import type { ToolPresentation } from './tool-presentation.js';
import { type StoredTool, type ToolEndpoint, ToolsetRepository } from './toolset-repository.js';
import { type ResolvedUpstream, UpstreamCatalog } from './upstream/upstream-catalog.js';
import type { ExposedTool } from './upstream/upstream-names.js';
import type { StoredUpstreams, UpstreamToolRef } from './upstream/upstream.types.js';

/** A tool contract with where it runs: built in, at a tenant's HTTP endpoint, or upstream. */
export interface ToolContract extends ToolSpec {
  builtin: boolean;
  endpoint?: ToolEndpoint;
  /** A tool of an upstream MCP server the tenant registered in the toolset. */
  upstream?: UpstreamToolRef;
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
  /** The toolset's upstream MCP servers and what each offers now (see UpstreamCatalog). */
  upstreams: ResolvedUpstream[];
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
    endpoint: { ...tool.endpoint },
    ...(Object.keys(presentation).length > 0 ? { presentation } : {}),
  };
}

function toolsetNotFound(tenantId: string, toolset: string): ProblemException {
  return new ProblemException(
    404,
    `toolset "${toolset}" does not exist for tenant "${tenantId}"`,
    'toolset-not-found',
  );
}

function upstreamContract(upstream: ResolvedUpstream, tool: ExposedTool): ToolContract {
  return {
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
    builtin: false,
    upstream: { upstream: upstream.name, tool: tool.tool, stamp: upstream.stamp ?? '' },
    ...(tool.hints && { hints: tool.hints }),
    ...(tool.presentation && { presentation: tool.presentation }),
  };
}

/** The contracts of a resolved toolset as a model is offered them. */
export function viewOf(found: ResolvedToolset): ToolsetView {
  return {
    tenantId: found.tenantId,
    toolset: found.toolset,
    version: found.version,
    tools: found.tools.map(({ name, description, parameters }) => ({
      name,
      description,
      parameters,
    })),
  };
}

/**
 * What tools a tenant has: the built-in toolsets (`default`, `board`: their built-ins plus what
 * the tenant registered there; version 0 until the tenant changes it) and every toolset the
 * tenant created. A toolset's tools are its built-ins, its HTTP tools, then the tools of its
 * upstream MCP servers as listed now (an upstream that cannot be listed offers none).
 */
@Injectable()
export class ToolCatalog {
  constructor(
    private readonly repository: ToolsetRepository,
    private readonly builtins: BuiltinTools,
    private readonly upstreamCatalog: UpstreamCatalog,
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
    const tools = [...builtins, ...own];
    const upstreams = stored
      ? await this.upstreamCatalog.resolve(
          tenantId,
          toolset,
          stored.upstreams,
          new Set(tools.map((tool) => tool.name)),
          MAX_TOOLS_PER_TOOLSET - tools.length,
        )
      : [];
    for (const upstream of upstreams) {
      for (const tool of upstream.tools) tools.push(upstreamContract(upstream, tool));
    }
    return { tenantId, toolset, version: stored?.version ?? 0, tools, upstreams };
  }

  /** Like `find`; throws 404 `toolset-not-found` for a toolset the tenant does not have. */
  async describe(tenantId: string, toolset: string): Promise<ResolvedToolset> {
    const found = await this.find(tenantId, toolset);
    if (!found) throw toolsetNotFound(tenantId, toolset);
    return found;
  }

  /** The upstreams registered in the toolset, without contacting them; 404 like `describe`. */
  async registered(
    tenantId: string,
    toolset: string,
  ): Promise<{ version: number; upstreams: StoredUpstreams }> {
    const stored = isName(toolset) ? await this.repository.read(tenantId, toolset) : null;
    if (!stored && !this.builtins.has(toolset)) throw toolsetNotFound(tenantId, toolset);
    return { version: stored?.version ?? 0, upstreams: stored?.upstreams ?? {} };
  }

  /** The contracts a model is offered. Throws 404 `toolset-not-found`. */
  async view(tenantId: string, toolset: string): Promise<ToolsetView> {
    return viewOf(await this.describe(tenantId, toolset));
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
