import { Controller, Delete, Get, HttpCode, Put } from '@nestjs/common';
import { CurrentPrincipal, RequirePermissions } from '../../platform/auth/auth.decorators.js';
import type { Principal } from '../../platform/auth/principal.js';
import { TenantQueryDto } from '../../platform/http/dto/tenant-query.dto.js';
import { ValidBody, ValidParams, ValidQuery } from '../../platform/http/validated-params.js';
import { RegisterResourceDto, ResourcePathDto } from './dto/register-resource.dto.js';
import { RegisteredResources } from './registered-resources.service.js';

/** Resources tenants register, served to MCP clients (with the built-in board and run resources). */
@Controller('v1/resources')
export class ResourcesController {
  constructor(private readonly resources: RegisteredResources) {}

  @Get()
  @RequirePermissions('tools:read')
  async list(@ValidQuery() { tenant_id }: TenantQueryDto) {
    return { tenant_id, resources: await this.resources.list(tenant_id) };
  }

  @Get(':name')
  @RequirePermissions('tools:read')
  async describe(
    @ValidParams() { name }: ResourcePathDto,
    @ValidQuery() { tenant_id }: TenantQueryDto,
  ) {
    return { tenant_id, resource: await this.resources.describe(tenant_id, name) };
  }

  @Put(':name')
  @RequirePermissions('tools:write')
  async register(
    @ValidParams() { name }: ResourcePathDto,
    @ValidBody() body: RegisterResourceDto,
    @CurrentPrincipal() principal: Principal,
  ) {
    const resource = await this.resources.register(name, body, principal.keyId);
    return { tenant_id: body.tenant_id, resource };
  }

  @Delete(':name')
  @HttpCode(204)
  @RequirePermissions('tools:write')
  async remove(
    @ValidParams() { name }: ResourcePathDto,
    @ValidQuery() { tenant_id }: TenantQueryDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<void> {
    await this.resources.remove(tenant_id, name, principal.keyId);
  }
}
