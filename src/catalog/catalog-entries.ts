import { ProblemException } from '../platform/http/problem.js';
import type { JsonValue, StateKey, StateStore } from '../platform/state/state-store.js';

/** How many prompts, or resources, one tenant may register. */
export const MAX_ENTRIES_PER_TENANT = 200;

/**
 * One kind of a tenant's MCP catalog (prompts, resources) in the shared state backend: one
 * entry per name in the kind's own scope, so every replica sees a change at once.
 */
export class CatalogEntries<T extends object> {
  constructor(
    private readonly state: StateStore,
    /** The state scope (`session_id` column); no caller-chosen session id can look like it. */
    private readonly scope: string,
    /** What the entries are called in errors (`prompt`, `resource`). */
    private readonly noun: string,
    /** Keeps only well-formed stored values: another version may have written them. */
    private readonly parse: (value: JsonValue) => T | null,
  ) {}

  private key(tenantId: string, name: string): StateKey {
    return { tenantId, sessionId: this.scope, key: name };
  }

  async get(tenantId: string, name: string): Promise<T | null> {
    const entry = await this.state.get(this.key(tenantId, name));
    return entry ? this.parse(entry.value) : null;
  }

  /** Like `get`; 404 `<noun>-not-found` when the tenant has none by that name. */
  async require(tenantId: string, name: string): Promise<T> {
    const found = await this.get(tenantId, name);
    if (found) return found;
    throw new ProblemException(
      404,
      `tenant "${tenantId}" has no ${this.noun} "${name}"`,
      `${this.noun}-not-found`,
    );
  }

  /** Every entry of the tenant, sorted by name. */
  async list(tenantId: string): Promise<Array<{ name: string; value: T }>> {
    const names = (await this.state.listKeys(tenantId, this.scope)).sort();
    const values = await Promise.all(names.map((name) => this.get(tenantId, name)));
    return names.flatMap((name, i) => {
      const value = values[i];
      return value ? [{ name, value }] : [];
    });
  }

  /** Registers or replaces; 409 `<noun>-limit` past MAX_ENTRIES_PER_TENANT (best effort). */
  async put(tenantId: string, name: string, value: T): Promise<{ replaced: boolean }> {
    const names = await this.state.listKeys(tenantId, this.scope);
    const replaced = names.includes(name);
    if (!replaced && names.length >= MAX_ENTRIES_PER_TENANT) {
      throw new ProblemException(
        409,
        `tenant "${tenantId}" already has ${MAX_ENTRIES_PER_TENANT} ${this.noun}s`,
        `${this.noun}-limit`,
      );
    }
    // T is JSON by construction (the services build it from a parsed request).
    await this.state.put(this.key(tenantId, name), value as unknown as JsonValue);
    return { replaced };
  }

  /** 404 `<noun>-not-found` when there was nothing to delete. */
  async delete(tenantId: string, name: string): Promise<void> {
    if (!(await this.state.delete(this.key(tenantId, name)))) {
      throw new ProblemException(
        404,
        `tenant "${tenantId}" has no ${this.noun} "${name}"`,
        `${this.noun}-not-found`,
      );
    }
  }
}
