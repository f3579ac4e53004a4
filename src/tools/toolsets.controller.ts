import { Controller, Delete, Get, Param, Put } from '@nestjs/common';
import { CurrentPrincipal, RequirePermissions } from '../platform/auth/auth.decorators.js';
import type { Principal } from '../platform/auth/principal.js';
import { RegisterToolDto } from './dto/register-tool.dto.js';
import { TenantQueryDto } from '../platform/http/dto/tenant-query.dto.js';
import { ValidBody, ValidParams, ValidQuery } from '../platform/http/validated-params.js';
import { ToolPathDto } from './dto/tool-path.dto.js';
import { type ToolContract, ToolCatalog } from './tool-catalog.service.js';
import { ToolRegistration } from './tool-registration.service.js';
import { upstreamStateBody } from './upstream/upstream-view.js';

/** Toolsets and their contracts: list, describe, register or replace, delete. */
@Controller('v1/toolsets')
export class ToolsetsController {
  constructor(
    private readonly catalog: ToolCatalog,
    private readonly registration: ToolRegistration,
  ) {}

  @Get()
  @RequirePermissions('tools:read')
  async list(@ValidQuery() { tenant_id }: TenantQueryDto) {
    return { tenant_id, toolsets: await this.catalog.list(tenant_id) };
  }

  @Get(':toolset')
  @RequirePermissions('tools:read')
  async describe(@Param('toolset') toolset: string, @ValidQuery() { tenant_id }: TenantQueryDto) {
    const found = await this.catalog.describe(tenant_id, toolset);
    return {
      tenant_id,
      toolset,
      version: found.version,
      tools: found.tools.map(toolBody),
      // Only toolsets with upstream MCP servers say how each is doing.
      ...(found.upstreams.length > 0 && {
        upstreams: found.upstreams.map((upstream) => ({
          name: upstream.name,
          ...upstreamStateBody(upstream),
        })),
      }),
    };
  }

  @Put(':toolset/tools/:name')
  @RequirePermissions('tools:write')
  async register(
    @ValidParams() { toolset, name }: ToolPathDto,
    @ValidBody() body: RegisterToolDto,
    @CurrentPrincipal() principal: Principal,
  ) {
    const { version, tool } = await this.registration.register(
      {
        tenantId: body.tenant_id,
        toolset,
        name,
        description: body.description,
        parameters: body.parameters,
        endpointUrl: body.endpoint.url,
        endpointProtocol: body.endpoint.protocol,
        ...(body.endpoint.headers !== undefined && { endpointHeaders: body.endpoint.headers }),
        presentation: {
          ...(body.title === undefined ? {} : { title: body.title }),
          ...(body.annotations === undefined ? {} : { annotations: { ...body.annotations } }),
          ...(body.icons === undefined ? {} : { icons: body.icons.map((icon) => ({ ...icon })) }),
          ...(body.output_schema === undefined ? {} : { outputSchema: body.output_schema }),
        },
      },
      principal.keyId,
    );
    return { tenant_id: body.tenant_id, toolset, version, tool: toolBody(tool) };
  }

  @Delete(':toolset/tools/:name')
  @RequirePermissions('tools:write')
  async remove(
    @ValidParams() { toolset, name }: ToolPathDto,
    @ValidQuery() { tenant_id }: TenantQueryDto,
    @CurrentPrincipal() principal: Principal,
  ) {
    const { version } = await this.registration.remove(tenant_id, toolset, name, principal.keyId);
    return { tenant_id, toolset, version };
  }
}

/** Where a tool runs, as responses show it: header names, never their values (secrets). */
function endpointView({ url, protocol, headers }: NonNullable<ToolContract['endpoint']>) {
  return {
    url,
    ...(protocol && { protocol }),
    ...(headers && { header_names: Object.keys(headers).sort() }),
  };
}

function toolBody({
  name,
  description,
  parameters,
  builtin,
  endpoint,
  presentation,
  upstream,
}: ToolContract) {
  return {
    name,
    description,
    parameters,
    builtin,
    ...(endpoint ? { endpoint: endpointView(endpoint) } : {}),
    ...(presentation?.title === undefined ? {} : { title: presentation.title }),
    ...(presentation?.annotations === undefined ? {} : { annotations: presentation.annotations }),
    ...(presentation?.icons === undefined ? {} : { icons: presentation.icons }),
    ...(presentation?.outputSchema === undefined
      ? {}
      : { output_schema: presentation.outputSchema }),
    ...(upstream ? { upstream: upstream.upstream } : {}),
  };
}
