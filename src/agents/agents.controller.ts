import { Controller, Get, HttpCode, HttpException, Param, Put } from '@nestjs/common';
import { RequirePermissions } from '../platform/auth/auth.decorators.js';
import { TenantQueryDto } from '../platform/http/dto/tenant-query.dto.js';
import { ProblemException, ValidationProblem } from '../platform/http/problem.js';
import { ValidBody, ValidQuery } from '../platform/http/validated-params.js';
import { ToolCatalog } from '../tools/tool-catalog.service.js';
import { DEFAULT_TOOLSET, isName } from '../tools/tool.limits.js';
import { checkAgentGraph } from './agent-graph.check.js';
import type { AgentSpec } from './agent-spec.js';
import { AgentSpecStore, type StoredAgentSpec } from './agent-spec.store.js';
import { PutAgentDto } from './dto/agent-spec.dto.js';

function view(tenantId: string, stored: StoredAgentSpec) {
  return {
    tenant_id: tenantId,
    name: stored.name,
    version: stored.version,
    updated_at: new Date(stored.updatedAt).toISOString(),
    ...stored.spec,
  };
}

function assertName(name: string): void {
  if (!isName(name)) {
    throw new ValidationProblem([
      { path: 'name', message: 'name must be 1 to 64 letters, digits, _ . or -' },
    ]);
  }
}

/** Agent specifications (`/v1/agents`): graphs of steps, validated at registration. */
@Controller('v1/agents')
export class AgentsController {
  constructor(
    private readonly specs: AgentSpecStore,
    private readonly catalog: ToolCatalog,
  ) {}

  @RequirePermissions('runs:write')
  @Put(':name')
  @HttpCode(200)
  async put(@Param('name') name: string, @ValidBody() body: PutAgentDto) {
    assertName(name);
    const tenantId = body.tenant_id;
    const toolsets = new Set(body.steps.map((step) => step.toolset ?? DEFAULT_TOOLSET));
    const known = new Map<string, ReadonlySet<string>>();
    for (const toolset of toolsets) {
      try {
        const found = await this.catalog.view(tenantId, toolset);
        known.set(toolset, new Set(found.tools.map((tool) => tool.name)));
      } catch (error) {
        if (!(error instanceof HttpException) || error.getStatus() !== 404) throw error;
      }
    }
    const errors = checkAgentGraph(body, (toolset) => known.get(toolset));
    if (errors.length > 0) throw new ValidationProblem(errors, errors[0].message);
    const spec: AgentSpec = {
      topology: body.topology,
      steps: body.steps,
      ...(body.description !== undefined ? { description: body.description } : {}),
      ...(body.budget !== undefined ? { budget: body.budget } : {}),
    };
    return view(tenantId, await this.specs.put(tenantId, name, spec));
  }

  @RequirePermissions('runs:read')
  @Get(':name')
  async get(@Param('name') name: string, @ValidQuery() query: TenantQueryDto) {
    const stored = isName(name) ? await this.specs.get(query.tenant_id, name) : null;
    if (!stored)
      throw new ProblemException(404, `no agent ${JSON.stringify(name)}`, 'agent-not-found');
    return view(query.tenant_id, stored);
  }

  @RequirePermissions('runs:read')
  @Get()
  async list(@ValidQuery() query: TenantQueryDto) {
    return { tenant_id: query.tenant_id, agents: await this.specs.list(query.tenant_id) };
  }
}
