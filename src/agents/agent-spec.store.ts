import { Injectable } from '@nestjs/common';
import { AGENTS_SCOPE } from '../platform/state/state-scopes.js';
import { type JsonValue, StateStore } from '../platform/state/state-store.js';
import type { AgentSpec } from './agent-spec.js';

export interface StoredAgentSpec {
  name: string;
  spec: AgentSpec;
  version: number;
  updatedAt: number;
}

/** Agent specifications per tenant in the state backend (scope `agents`, key = agent name). */
@Injectable()
export class AgentSpecStore {
  constructor(private readonly store: StateStore) {}

  async put(tenantId: string, name: string, spec: AgentSpec): Promise<StoredAgentSpec> {
    const entry = await this.store.put(
      { tenantId, sessionId: AGENTS_SCOPE, key: name },
      spec as unknown as JsonValue,
    );
    return { name, spec, version: entry.version, updatedAt: entry.updatedAt };
  }

  async get(tenantId: string, name: string): Promise<StoredAgentSpec | null> {
    const entry = await this.store.get({ tenantId, sessionId: AGENTS_SCOPE, key: name });
    if (!entry) return null;
    return {
      name,
      spec: entry.value as unknown as AgentSpec,
      version: entry.version,
      updatedAt: entry.updatedAt,
    };
  }

  list(tenantId: string): Promise<string[]> {
    return this.store.listKeys(tenantId, AGENTS_SCOPE);
  }
}
