import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { StateConflictError, type StateKey, StateStore } from './state-store.js';

/**
 * The header every outgoing call of the gateway carries (tool calls, upstream MCP and A2A
 * calls, chat deliveries, run webhooks): the mark of this deployment. A request that comes back
 * with it was made by this deployment on a run's behalf (runs/lifecycle/run-lineage.ts).
 */
export const LINEAGE_HEADER = 'x-svc-lineage';

/** Where the deployment's id is kept: a scope no tenant's request can name. */
const DEPLOYMENT_KEY: StateKey = { tenantId: '_gateway', sessionId: 'gateway', key: 'deployment' };

/**
 * What tells this deployment's own calls from anyone else's: a random id made once in the
 * state backend (so every replica of the deployment shares it, and another deployment has its
 * own), sent as an HMAC of it rather than itself. A call from another gateway deployment is
 * therefore a client like any other, while a call this deployment made for a run is known as
 * such on whichever of its replicas it lands. Forging the mark gains nothing: it only makes a
 * request unable to start runs.
 */
@Injectable()
export class DeploymentMark {
  private mark?: Promise<string>;

  constructor(private readonly store: StateStore) {}

  /** The headers that mark an outgoing call as this deployment's (fails while the backend is away). */
  async headers(): Promise<Record<string, string>> {
    return { [LINEAGE_HEADER]: await this.value() };
  }

  /** Whether a request's lineage header is this deployment's mark (no header: a person's). */
  async isOwn(header: string | string[] | undefined): Promise<boolean> {
    const sent = Array.isArray(header) ? header[0] : header;
    if (!sent) return false;
    let mark: string;
    try {
      mark = await this.value();
    } catch {
      // Unknown while the backend is away, when no run can start anyway: taken as ours.
      return true;
    }
    const a = Buffer.from(sent);
    const b = Buffer.from(mark);
    return a.length === b.length && timingSafeEqual(a, b);
  }

  private value(): Promise<string> {
    this.mark ??= this.load().catch((error: unknown) => {
      this.mark = undefined;
      throw error;
    });
    return this.mark;
  }

  private async load(): Promise<string> {
    let id = (await this.store.get<{ id: string }>(DEPLOYMENT_KEY))?.value.id;
    if (!id) {
      try {
        await this.store.put(DEPLOYMENT_KEY, { id: randomUUID() }, { expectedVersion: 0 });
      } catch (error) {
        // Another replica made it first: its id is the deployment's.
        if (!(error instanceof StateConflictError)) throw error;
      }
      id = (await this.store.get<{ id: string }>(DEPLOYMENT_KEY))?.value.id;
    }
    if (!id) throw new Error('the deployment id could not be read back');
    return createHmac('sha256', id).update('svc-gateway run lineage').digest('base64url');
  }
}
