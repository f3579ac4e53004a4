import { Injectable } from '@nestjs/common';
import { AuditSink } from '../platform/audit/audit-sink.js';
import { ProblemException, ValidationProblem } from '../platform/http/problem.js';
import type { JsonValue } from '../platform/state/state-store.js';
import { BuiltinTools } from './builtin/builtin-tools.js';
import { SchemaCompileBudget } from './schema-compile-budget.js';
import { ToolSchemas } from './tool-schemas.js';
import { ToolEndpointPolicy } from './tool-endpoint.policy.js';
import { MAX_TOOLS_PER_TOOLSET } from './tool.limits.js';
import { type ToolContract, registeredContract } from './tool-catalog.service.js';
import type { ToolPresentation } from './tool-presentation.js';
import { type StoredTool, ToolsetRepository } from './toolset-repository.js';
import { refuseNewToolsetOverLimit } from './toolset-quota.js';
import { checkHeaders } from './upstream/upstream-headers.js';
import { RESERVED_HEADERS } from './upstream/upstream.limits.js';

export interface ToolRegistrationRequest {
  tenantId: string;
  toolset: string;
  name: string;
  description: string;
  parameters: { [key: string]: JsonValue };
  endpointUrl: string;
  /** `a2a`: the endpoint is a remote A2A agent. */
  endpointProtocol?: 'http' | 'a2a';
  /** An A2A agent's headers (credentials), checked here; never shown back. */
  endpointHeaders?: { [name: string]: JsonValue };
  /** Title, annotations, icons and output schema, as the tenant gave them. */
  presentation?: ToolPresentation;
}

/** Headers the A2A client or the gateway sets on a call to an agent: not a tenant's to set. */
const A2A_RESERVED_HEADERS: ReadonlySet<string> = new Set([
  ...RESERVED_HEADERS,
  'a2a-version',
  'a2a-extensions',
  'x-a2a-extensions',
  'user-agent',
]);

/** The checked headers of an A2A agent's endpoint; any other endpoint takes none. */
function endpointHeaders(request: ToolRegistrationRequest): { [name: string]: string } {
  if (request.endpointHeaders === undefined) return {};
  if (request.endpointProtocol !== 'a2a') {
    const message = 'headers are sent to A2A agents (protocol a2a) only';
    throw new ValidationProblem([{ path: 'endpoint.headers', message }], message);
  }
  const { headers, errors } = checkHeaders(
    request.endpointHeaders,
    A2A_RESERVED_HEADERS,
    'endpoint.headers',
  );
  if (errors.length > 0) throw ValidationProblem.listing(errors);
  return headers;
}

/**
 * Registers, replaces and deletes tenants' HTTP tools. Every change bumps the toolset's version
 * (the state entry's version) and is audited. Names, lengths and the URL are checked by the DTOs;
 * the schema is checked here because only ajv can tell whether it compiles.
 */
@Injectable()
export class ToolRegistration {
  constructor(
    private readonly repository: ToolsetRepository,
    private readonly builtins: BuiltinTools,
    private readonly toolSchemas: ToolSchemas,
    private readonly audit: AuditSink,
    private readonly endpoints: ToolEndpointPolicy,
    private readonly compileBudget: SchemaCompileBudget,
  ) {}

  async register(
    request: ToolRegistrationRequest,
    actor?: string,
  ): Promise<{ version: number; tool: ToolContract }> {
    const { tenantId, toolset, name } = request;
    this.refuseBuiltin(toolset, name);
    const refusal = this.endpoints.refusal(request.endpointUrl);
    if (refusal) throw new ValidationProblem([{ path: 'endpoint.url', message: refusal }], refusal);
    const headers = endpointHeaders(request);
    const schemas = await this.toolSchemas.load();
    const errors = schemas.check(
      request.parameters,
      'parameters',
      this.compileBudget.account(tenantId),
    );
    if (errors.length > 0) {
      throw new ValidationProblem(
        errors,
        'parameters is not a usable JSON Schema for tool arguments',
      );
    }
    const outputSchema = request.presentation?.outputSchema;
    if (outputSchema !== undefined) {
      const outputErrors = schemas.check(
        outputSchema,
        'output_schema',
        this.compileBudget.account(tenantId),
      );
      if (outputErrors.length > 0) {
        throw new ValidationProblem(
          outputErrors,
          'output_schema is not a usable JSON Schema for a result object',
        );
      }
    }
    await refuseNewToolsetOverLimit(this.repository, this.builtins, tenantId, toolset);

    const tool: StoredTool = {
      description: request.description,
      parameters: request.parameters,
      endpoint: {
        url: request.endpointUrl,
        ...(request.endpointProtocol === 'a2a' && { protocol: 'a2a' as const }),
        ...(Object.keys(headers).length > 0 && { headers }),
      },
      ...request.presentation,
    };
    // The built-ins count too: a model is offered the whole toolset. So does every upstream
    // MCP server (one place each: how many tools it offers is only known when it is listed).
    const room = MAX_TOOLS_PER_TOOLSET - this.builtins.tools(toolset).length;
    let replaced = false;
    const { version } = await this.repository.write(tenantId, toolset, (contents) => {
      const { tools, upstreams } = contents;
      replaced = Object.hasOwn(tools, name);
      const used = Object.keys(tools).length + Object.keys(upstreams).length;
      if (!replaced && used >= room) {
        throw new ProblemException(
          409,
          `toolset "${toolset}" already holds ${MAX_TOOLS_PER_TOOLSET} tools`,
          'toolset-full',
        );
      }
      return { ...contents, tools: { ...tools, [name]: tool } };
    });
    this.audit.record({
      kind: 'tool.registered',
      tenantId,
      actor,
      details: { toolset, tool: name, version, replaced },
    });
    return { version, tool: registeredContract(name, tool) };
  }

  /** Deletes a registered tool; 404 `tool-not-found` when the toolset has no such tool. */
  async remove(
    tenantId: string,
    toolset: string,
    name: string,
    actor?: string,
  ): Promise<{ version: number }> {
    this.refuseBuiltin(toolset, name);
    const notFound = () =>
      new ProblemException(
        404,
        `toolset "${toolset}" of tenant "${tenantId}" has no tool "${name}"`,
        'tool-not-found',
      );
    // Checked before the write, so a miss neither bumps the version nor creates an entry.
    const current = await this.repository.read(tenantId, toolset);
    if (!current || !Object.hasOwn(current.tools, name)) throw notFound();
    const { version } = await this.repository.update(tenantId, toolset, (tools) => {
      if (!Object.hasOwn(tools, name)) throw notFound(); // deleted concurrently
      const rest = { ...tools };
      delete rest[name];
      return rest;
    });
    this.audit.record({
      kind: 'tool.deleted',
      tenantId,
      actor,
      details: { toolset, tool: name, version },
    });
    return { version };
  }

  private refuseBuiltin(toolset: string, name: string): void {
    if (this.builtins.get(toolset, name)) {
      throw new ProblemException(
        409,
        `"${name}" is a built-in tool of toolset "${toolset}" and cannot be replaced or deleted`,
        'builtin-tool',
      );
    }
  }
}
