import { Controller, Delete, Get, HttpCode, Put } from '@nestjs/common';
import { CurrentPrincipal, RequirePermissions } from '../../platform/auth/auth.decorators.js';
import type { Principal } from '../../platform/auth/principal.js';
import { TenantQueryDto } from '../../platform/http/dto/tenant-query.dto.js';
import { ValidBody, ValidParams, ValidQuery } from '../../platform/http/validated-params.js';
import { PromptPathDto, RegisterPromptDto } from './dto/register-prompt.dto.js';
import { PromptTemplates } from './prompt-templates.service.js';

/** Tenants' prompt templates, served to MCP clients as prompts. */
@Controller('v1/prompts')
export class PromptsController {
  constructor(private readonly prompts: PromptTemplates) {}

  @Get()
  @RequirePermissions('tools:read')
  async list(@ValidQuery() { tenant_id }: TenantQueryDto) {
    return { tenant_id, prompts: await this.prompts.list(tenant_id) };
  }

  @Get(':name')
  @RequirePermissions('tools:read')
  async describe(
    @ValidParams() { name }: PromptPathDto,
    @ValidQuery() { tenant_id }: TenantQueryDto,
  ) {
    return { tenant_id, prompt: await this.prompts.describe(tenant_id, name) };
  }

  @Put(':name')
  @RequirePermissions('tools:write')
  async register(
    @ValidParams() { name }: PromptPathDto,
    @ValidBody() body: RegisterPromptDto,
    @CurrentPrincipal() principal: Principal,
  ) {
    const prompt = await this.prompts.register(name, body, principal.keyId);
    return { tenant_id: body.tenant_id, prompt };
  }

  @Delete(':name')
  @HttpCode(204)
  @RequirePermissions('tools:write')
  async remove(
    @ValidParams() { name }: PromptPathDto,
    @ValidQuery() { tenant_id }: TenantQueryDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<void> {
    await this.prompts.remove(tenant_id, name, principal.keyId);
  }
}
