import { Module } from '@nestjs/common';
import { StateModule } from '../platform/state/state.module.js';
import { CatalogChanges } from './catalog-changes.js';
import { PromptTemplates } from './prompts/prompt-templates.service.js';
import { PromptsController } from './prompts/prompts.controller.js';
import { RegisteredResources } from './resources/registered-resources.service.js';
import { ResourcesController } from './resources/resources.controller.js';

/**
 * What a tenant offers MCP clients besides tools: prompt templates and resources, registered
 * over REST (`/v1/prompts`, `/v1/resources`) and kept in the state backend.
 */
@Module({
  imports: [StateModule],
  controllers: [PromptsController, ResourcesController],
  providers: [CatalogChanges, PromptTemplates, RegisteredResources],
  exports: [CatalogChanges, PromptTemplates, RegisteredResources],
})
export class CatalogModule {}
