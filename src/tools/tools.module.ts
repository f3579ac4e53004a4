import { Module } from '@nestjs/common';
import { StateModule } from '../platform/state/state.module.js';
import { BuiltinTools } from './builtin/builtin-tools.js';
import { HttpToolInvoker } from './http-tool.invoker.js';
import { SchemaCompileBudget } from './schema-compile-budget.js';
import { ToolSchemas } from './tool-schemas.js';
import { ToolCatalog } from './tool-catalog.service.js';
import { ToolEndpointPolicy } from './tool-endpoint.policy.js';
import { ToolExecutor } from './tool-executor.service.js';
import { ToolRegistration } from './tool-registration.service.js';
import { ToolsController } from './tools.controller.js';
import { ToolsetChanges } from './toolset-changes.js';
import { ToolsetRepository } from './toolset-repository.js';
import { ToolsetsController } from './toolsets.controller.js';
import { UpstreamCatalog } from './upstream/upstream-catalog.js';
import { UpstreamChangeAnnouncer } from './upstream/upstream-change.announcer.js';
import { UpstreamConnections } from './upstream/upstream-connections.js';
import { UpstreamInvoker } from './upstream/upstream-invoker.js';
import { A2AAgentInvoker } from './a2a/a2a-agent.invoker.js';
import { UpstreamRegistration } from './upstream/upstream-registration.service.js';
import { UpstreamToolLists } from './upstream/upstream-tool-lists.js';
import { UpstreamUrlPolicy } from './upstream/upstream-url.policy.js';
import { UpstreamsController } from './upstream/upstreams.controller.js';

/**
 * Toolsets (built-in toolsets in code, tenants' HTTP tools in the state backend) and the one
 * tool execution path. Exports the catalog and the executor for the agent loop and MCP, and the
 * built-in registry for feature modules that bring a toolset of their own (the board).
 */
@Module({
  imports: [StateModule],
  controllers: [ToolsetsController, UpstreamsController, ToolsController],
  providers: [
    ToolSchemas,
    SchemaCompileBudget,
    BuiltinTools,
    ToolsetRepository,
    ToolsetChanges,
    ToolCatalog,
    ToolRegistration,
    HttpToolInvoker,
    ToolEndpointPolicy,
    ToolExecutor,
    // Upstream MCP servers (federation): see upstream/.
    UpstreamUrlPolicy,
    UpstreamConnections,
    UpstreamToolLists,
    UpstreamCatalog,
    UpstreamInvoker,
    A2AAgentInvoker,
    UpstreamRegistration,
    UpstreamChangeAnnouncer,
  ],
  exports: [ToolCatalog, ToolExecutor, BuiltinTools, ToolsetChanges, UpstreamConnections],
})
export class ToolsModule {}
