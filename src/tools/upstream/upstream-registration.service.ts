import { Injectable } from '@nestjs/common';
import { AuditSink } from '../../platform/audit/audit-sink.js';
import { ProblemException, ValidationProblem } from '../../platform/http/problem.js';
import type { JsonValue } from '../../platform/state/state-store.js';
import { BuiltinTools } from '../builtin/builtin-tools.js';
import { MAX_TOOLS_PER_TOOLSET } from '../tool.limits.js';
import { ToolsetRepository } from '../toolset-repository.js';
import { refuseNewToolsetOverLimit } from '../toolset-quota.js';
import { UpstreamConnections } from './upstream-connections.js';
import { checkHeaders } from './upstream-headers.js';
import { originOf } from './upstream-key.js';
import { MAX_UPSTREAMS_PER_TOOLSET } from './upstream.limits.js';
import { UpstreamUrlPolicy } from './upstream-url.policy.js';
import type { StoredUpstream, StoredUpstreams } from './upstream.types.js';

export interface UpstreamRegistrationRequest {
  tenantId: string;
  toolset: string;
  name: string;
  url: string;
  headers?: { [name: string]: JsonValue };
  tools?: string[];
  prefix?: string;
}

/**
 * Registers, replaces and deletes tenants' upstream MCP servers. Like HTTP tools, every change
 * bumps the toolset's version and is audited (header names only), the URL passes the SSRF
 * policy, and the toolset's bounds hold: each upstream takes one of its MAX_TOOLS_PER_TOOLSET
 * places (the tools it offers beyond that are bounded when listed), at most
 * MAX_UPSTREAMS_PER_TOOLSET of them. Registering does not contact the server: its state shows
 * in the toolset's description.
 */
@Injectable()
export class UpstreamRegistration {
  constructor(
    private readonly repository: ToolsetRepository,
    private readonly builtins: BuiltinTools,
    private readonly audit: AuditSink,
    private readonly urls: UpstreamUrlPolicy,
    private readonly connections: UpstreamConnections,
  ) {}

  async register(
    request: UpstreamRegistrationRequest,
    actor?: string,
  ): Promise<{ version: number; upstream: StoredUpstream }> {
    const { tenantId, toolset, name } = request;
    const refusal = this.urls.refusal(request.url);
    if (refusal) throw new ValidationProblem([{ path: 'url', message: refusal }], refusal);
    const { headers, errors } = checkHeaders(request.headers);
    if (errors.length > 0) throw ValidationProblem.listing(errors);
    await refuseNewToolsetOverLimit(this.repository, this.builtins, tenantId, toolset);

    const upstream: StoredUpstream = {
      url: request.url,
      headers,
      tools: request.tools ? [...new Set(request.tools)] : null,
      prefix: request.prefix ?? `${name}_`,
    };
    const room = MAX_TOOLS_PER_TOOLSET - this.builtins.tools(toolset).length;
    let replaced = false;
    const { version } = await this.repository.write(tenantId, toolset, (contents) => {
      const { tools, upstreams } = contents;
      replaced = Object.hasOwn(upstreams, name);
      if (!replaced) refuseFull(toolset, Object.keys(tools).length, upstreams, room);
      return { ...contents, upstreams: { ...upstreams, [name]: upstream } };
    });
    this.forget(tenantId, toolset, name);
    this.audit.record({
      kind: 'upstream.registered',
      tenantId,
      actor,
      details: {
        toolset,
        upstream: name,
        version,
        replaced,
        endpoint: originOf(upstream.url),
        header_names: Object.keys(headers).sort(),
      },
    });
    return { version, upstream };
  }

  /** Deletes an upstream; 404 `upstream-not-found` when the toolset has none of that name. */
  async remove(
    tenantId: string,
    toolset: string,
    name: string,
    actor?: string,
  ): Promise<{ version: number }> {
    const notFound = () => upstreamNotFound(tenantId, toolset, name);
    // Checked before the write, so a miss neither bumps the version nor creates an entry.
    const current = await this.repository.read(tenantId, toolset);
    if (!current || !Object.hasOwn(current.upstreams, name)) throw notFound();
    const { version } = await this.repository.write(tenantId, toolset, (contents) => {
      if (!Object.hasOwn(contents.upstreams, name)) throw notFound(); // deleted concurrently
      const upstreams = { ...contents.upstreams };
      delete upstreams[name];
      return { ...contents, upstreams };
    });
    this.forget(tenantId, toolset, name);
    this.audit.record({
      kind: 'upstream.deleted',
      tenantId,
      actor,
      details: { toolset, upstream: name, version },
    });
    return { version };
  }

  /** This replica's connection under the old registration closes now; others' when idle. */
  private forget(tenantId: string, toolset: string, name: string): void {
    this.connections.forget(
      (target) =>
        target.tenantId === tenantId && target.toolset === toolset && target.name === name,
    );
  }
}

export function upstreamNotFound(tenantId: string, toolset: string, name: string) {
  return new ProblemException(
    404,
    `toolset "${toolset}" of tenant "${tenantId}" has no upstream MCP server "${name}"`,
    'upstream-not-found',
  );
}

function refuseFull(toolset: string, tools: number, upstreams: StoredUpstreams, room: number) {
  const count = Object.keys(upstreams).length;
  if (count >= MAX_UPSTREAMS_PER_TOOLSET) {
    throw new ProblemException(
      409,
      `toolset "${toolset}" already has ${MAX_UPSTREAMS_PER_TOOLSET} upstream MCP servers`,
      'toolset-full',
    );
  }
  if (tools + count >= room) {
    throw new ProblemException(
      409,
      `toolset "${toolset}" already holds ${MAX_TOOLS_PER_TOOLSET} tools`,
      'toolset-full',
    );
  }
}
