import { Injectable } from '@nestjs/common';
import { ProblemException } from '../platform/http/problem.js';
import { type ToolPresentation, parsePresentation } from './tool-presentation.js';
import { ToolsetChanges } from './toolset-changes.js';
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
  endpoint: { url: string };
} & ToolPresentation;
export type StoredTools = { [name: string]: StoredTool };

/** One toolset of one tenant; `version` is the state entry's version. */
export interface StoredToolset {
  version: number;
  tools: StoredTools;
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
      tools[name] = {
        description,
        parameters,
        endpoint: { url: tool.endpoint.url },
        ...parsePresentation(tool),
      };
    }
  }
  return tools;
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
    return entry && { version: entry.version, tools: parseTools(entry.value) };
  }

  /** Names of the toolsets the tenant has written, sorted. */
  names(tenantId: string): Promise<string[]> {
    return this.state.listKeys(tenantId, TOOLSETS_SCOPE);
  }

  /**
   * Read-modify-write with optimistic concurrency: `change` gets the current tools (a copy it may
   * modify; empty before the first write) and returns the new ones, or throws to write nothing.
   * A concurrent writer makes the write fail, and the change is applied again to the fresh entry.
   */
  async update(
    tenantId: string,
    toolset: string,
    change: (tools: StoredTools) => StoredTools,
  ): Promise<StoredToolset> {
    const key = this.key(tenantId, toolset);
    for (let attempt = 1; attempt <= WRITE_ATTEMPTS; attempt++) {
      const current = await this.state.get(key);
      const tools = change(current ? parseTools(current.value) : {});
      try {
        const written = await this.state.put(
          key,
          // Stored tools are JSON: built from validated request bodies.
          { tools } as unknown as JsonValue,
          { expectedVersion: current?.version ?? 0 },
        );
        void this.changes.announce({ tenantId, toolset });
        return { version: written.version, tools };
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
