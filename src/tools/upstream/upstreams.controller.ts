import { Controller, Delete, Get, Param, Put } from '@nestjs/common';
import { CurrentPrincipal, RequirePermissions } from '../../platform/auth/auth.decorators.js';
import type { Principal } from '../../platform/auth/principal.js';
import { TenantQueryDto } from '../../platform/http/dto/tenant-query.dto.js';
import { ValidBody, ValidParams, ValidQuery } from '../../platform/http/validated-params.js';
import { ToolPathDto } from '../dto/tool-path.dto.js';
import { ToolCatalog } from '../tool-catalog.service.js';
import { RegisterUpstreamDto } from './dto/register-upstream.dto.js';
import { UpstreamRegistration, upstreamNotFound } from './upstream-registration.service.js';
import { upstreamBody, upstreamStateBody } from './upstream-view.js';

/**
 * A toolset's upstream MCP servers: register or replace, list, describe (with what it offers
 * now), delete. Header values are never shown back, only their names.
 */
@Controller('v1/toolsets')
export class UpstreamsController {
  constructor(
    private readonly catalog: ToolCatalog,
    private readonly registration: UpstreamRegistration,
  ) {}

  @Get(':toolset/upstreams')
  @RequirePermissions('tools:read')
  async list(@Param('toolset') toolset: string, @ValidQuery() { tenant_id }: TenantQueryDto) {
    const found = await this.catalog.registered(tenant_id, toolset);
    const upstreams = Object.entries(found.upstreams)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([name, upstream]) => upstreamBody(name, upstream));
    return { tenant_id, toolset, version: found.version, upstreams };
  }

  @Get(':toolset/upstreams/:name')
  @RequirePermissions('tools:read')
  async describe(
    @ValidParams() { toolset, name }: ToolPathDto,
    @ValidQuery() { tenant_id }: TenantQueryDto,
  ) {
    const found = await this.catalog.describe(tenant_id, toolset);
    const resolved = found.upstreams.find((upstream) => upstream.name === name);
    if (!resolved) throw upstreamNotFound(tenant_id, toolset, name);
    return {
      tenant_id,
      toolset,
      version: found.version,
      upstream: { ...upstreamBody(name, resolved.registration), ...upstreamStateBody(resolved) },
    };
  }

  @Put(':toolset/upstreams/:name')
  @RequirePermissions('tools:write')
  async register(
    @ValidParams() { toolset, name }: ToolPathDto,
    @ValidBody() body: RegisterUpstreamDto,
    @CurrentPrincipal() principal: Principal,
  ) {
    const { version, upstream } = await this.registration.register(
      {
        tenantId: body.tenant_id,
        toolset,
        name,
        url: body.url,
        headers: body.headers,
        tools: body.tools,
        prefix: body.prefix,
      },
      principal.keyId,
    );
    return { tenant_id: body.tenant_id, toolset, version, upstream: upstreamBody(name, upstream) };
  }

  @Delete(':toolset/upstreams/:name')
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
