import { Injectable } from '@nestjs/common';
import { ProblemException } from '../platform/http/problem.js';
import { type ToolPresentation, parsePresentation } from './tool-presentation.js';
import { ToolsetChanges } from './toolset-changes.js';
import type { StoredUpstream, StoredUpstreams } from './upstream/upstream.types.js';
import {
  type JsonValue,
  StateConflictError,
  type StateKey,
  StateStore,
} from '../platform/state/state-store.js';

/**
 * The state scope (`session_id` column) of toolset entries. The agent's own scopes are
 * `session:<id>` and `run:<id>`, so no caller-chosen id can land here.
 */
export const TOOLSETS_SCOPE = 'toolsets';

type JsonObject = { [key: string]: JsonValue };

/** A tenant-registered HTTP tool as stored (with how MCP clients present it, when given). */
export type StoredTool = {
  description: string;
  parameters: JsonObject;
  /** `protocol` `a2a`: `url` is a remote A2A agent; absent: an HTTP endpoint. */
  endpoint: ToolEndpoint;
} & ToolPresentation;

export interface ToolEndpoint {
  url: string;
  protocol?: 'a2a';
  /** An A2A agent's headers (its credentials): sent, never shown back (see endpointView). */
  headers?: { [name: string]: string };
}
export type StoredTools = { [name: string]: StoredTool };

/** What one toolset entry holds: HTTP tools and upstream MCP servers. */
export interface ToolsetContents {
  tools: StoredTools;
  upstreams: StoredUpstreams;
}

/** One toolset of one tenant; `version` is the state entry's version. */
export interface StoredToolset extends ToolsetContents {
  version: number;
}

// Each lost attempt means another writer won, so this many concurrent writers always succeed.
const WRITE_ATTEMPTS = 8;

function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Keeps well-formed tools only: an entry is JSON that another version may have written. */
function parseTools(value: JsonValue): StoredTools {
  // No prototype: a tool may be named `__proto__`, and assigning it must not set a prototype.
  const tools = Object.create(null) as StoredTools;
  const stored = isObject(value) && isObject(value.tools) ? value.tools : {};
  for (const [name, tool] of Object.entries(stored)) {
    if (
      isObject(tool) &&
      typeof tool.description === 'string' &&
      isObject(tool.parameters) &&
      isObject(tool.endpoint) &&
      typeof tool.endpoint.url === 'string'
    ) {
      const { description, parameters } = tool;
      const headers = stringMap(tool.endpoint.headers);
      tools[name] = {
        description,
        parameters,
        endpoint: {
          url: tool.endpoint.url,
          ...(tool.endpoint.protocol === 'a2a' && { protocol: 'a2a' as const }),
          ...(Object.keys(headers).length > 0 && { headers }),
        },
        ...parsePresentation(tool),
      };
    }
  }
  return tools;
}

const isStrings = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === 'string');

/** A stored map of header names to values, its string values only. */
function stringMap(value: JsonValue | undefined): { [name: string]: string } {
  const headers: { [name: string]: string } = {};
  for (const [name, header] of Object.entries(isObject(value) ? value : {})) {
    if (typeof header === 'string') headers[name] = header;
  }
  return headers;
}

function parseUpstream(value: JsonValue): StoredUpstream | null {
  if (!isObject(value) || typeof value.url !== 'string' || typeof value.prefix !== 'string') {
    return null;
  }
  const headers = stringMap(value.headers);
  const tools = isStrings(value.tools) ? [...value.tools] : null;
  return { url: value.url, headers, tools, prefix: value.prefix };
}

function parseUpstreams(value: JsonValue): StoredUpstreams {
  const upstreams = Object.create(null) as StoredUpstreams;
  const stored = isObject(value) && isObject(value.upstreams) ? value.upstreams : {};
  for (const [name, entry] of Object.entries(stored)) {
    const upstream = parseUpstream(entry);
    if (upstream) upstreams[name] = upstream;
  }
  return upstreams;
}

function parseContents(value: JsonValue): ToolsetContents {
  return { tools: parseTools(value), upstreams: parseUpstreams(value) };
}

function toJson({ tools, upstreams }: ToolsetContents): JsonValue {
  // Stored types are JSON by construction; an entry without upstreams keeps its old shape.
  const json = { tools } as unknown as { [key: string]: JsonValue };
  if (Object.keys(upstreams).length > 0) json.upstreams = upstreams as unknown as JsonValue;
  return json;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Registered toolsets in the shared state backend: one entry per (tenant, toolset) holding its
 * contracts, so every replica sees a change at once. The entry's version is the toolset version.
 * Entries are never deleted, so a version is never reused for other contents.
 */
@Injectable()
export class ToolsetRepository {
  constructor(
    private readonly state: StateStore,
    private readonly changes: ToolsetChanges,
  ) {}

  private key(tenantId: string, toolset: string): StateKey {
    return { tenantId, sessionId: TOOLSETS_SCOPE, key: toolset };
  }

  async read(tenantId: string, toolset: string): Promise<StoredToolset | null> {
    const entry = await this.state.get(this.key(tenantId, toolset));
    return entry && { version: entry.version, ...parseContents(entry.value) };
  }

  /** Names of the toolsets the tenant has written, sorted. */
  names(tenantId: string): Promise<string[]> {
    return this.state.listKeys(tenantId, TOOLSETS_SCOPE);
  }

  /**
   * Read-modify-write of the HTTP tools with optimistic concurrency: `change` gets the current
   * tools (a copy it may modify; empty before the first write) and returns the new ones, or
   * throws to write nothing. A concurrent writer makes the write fail, and the change is applied
   * again to the fresh entry. The toolset's upstreams are kept as they are.
   */
  async update(
    tenantId: string,
    toolset: string,
    change: (tools: StoredTools) => StoredTools,
  ): Promise<StoredToolset> {
    return this.write(tenantId, toolset, (contents) => ({
      ...contents,
      tools: change(contents.tools),
    }));
  }

  /** Like `update`, for the whole entry (upstream registrations need to see the tools too). */
  async write(
    tenantId: string,
    toolset: string,
    change: (contents: ToolsetContents) => ToolsetContents,
  ): Promise<StoredToolset> {
    const key = this.key(tenantId, toolset);
    for (let attempt = 1; attempt <= WRITE_ATTEMPTS; attempt++) {
      const current = await this.state.get(key);
      const contents = change(
        current ? parseContents(current.value) : { tools: {}, upstreams: {} },
      );
      try {
        const written = await this.state.put(key, toJson(contents), {
          expectedVersion: current?.version ?? 0,
        });
        void this.changes.announce({ tenantId, toolset });
        return { version: written.version, ...contents };
      } catch (error) {
        if (!(error instanceof StateConflictError)) throw error;
        await pause(Math.random() * 10 * attempt); // spread out writers that collided
      }
    }
    throw new ProblemException(
      409,
      `toolset "${toolset}" is being changed concurrently; retry the request`,
      'toolset-conflict',
    );
  }
}
