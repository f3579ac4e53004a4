import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import type { RequestId } from '@modelcontextprotocol/server';
import { LinkedAbort } from '../platform/signals/linked-abort.js';
import { StateNotifications } from '../platform/state/state-notifications.js';

const CHANNEL = 'svc_mcp_cancel';

/** Whose call it is: a cancellation may only stop calls of the key and tenant that sent it. */
export interface CallOwner {
  keyId: string;
  tenantId: string;
}

const callKey = (owner: CallOwner, requestId: RequestId) =>
  JSON.stringify([owner.keyId, owner.tenantId, requestId]);

/**
 * Cancellation where there is no session to carry it: a stateless POST's `tools/call` runs on
 * whichever replica took it, while the client's `notifications/cancelled` arrives as a POST of
 * its own, anywhere. Calls in flight register here under (key, tenant, request id); a
 * cancellation is broadcast through the state backend's notifications and stops the matching
 * call on every replica. Two clients sharing one key and tenant with the same request id in
 * flight at once would both stop: the id is all a stateless request names.
 */
@Injectable()
export class StatelessCancellations implements OnModuleDestroy {
  private readonly calls = new Map<string, Set<LinkedAbort>>();
  private readonly unlisten: () => void;

  constructor(private readonly notifications: StateNotifications) {
    this.unlisten = notifications.listen(CHANNEL, (payload) => this.abortLocal(payload));
  }

  /** A signal that aborts with `signal` or with a cancellation of this call; `release` when done. */
  track(
    owner: CallOwner,
    requestId: RequestId,
    signal: AbortSignal,
  ): { signal: AbortSignal; release(): void } {
    const key = callKey(owner, requestId);
    const call = new LinkedAbort([signal]);
    let set = this.calls.get(key);
    if (!set) {
      set = new Set();
      this.calls.set(key, set);
    }
    set.add(call);
    return {
      signal: call.signal,
      release: () => {
        call.unlink();
        set.delete(call);
        if (set.size === 0 && this.calls.get(key) === set) this.calls.delete(key);
      },
    };
  }

  /** Stops the call on whichever replica runs it. Best effort, like the notification itself. */
  async cancel(owner: CallOwner, requestId: RequestId): Promise<void> {
    await this.notifications.notify(CHANNEL, callKey(owner, requestId)).catch(() => undefined);
  }

  get inFlight(): number {
    return this.calls.size;
  }

  onModuleDestroy(): void {
    this.unlisten();
  }

  private abortLocal(key: string): void {
    for (const call of this.calls.get(key) ?? []) {
      call.abort(new Error('the client cancelled the request'));
    }
  }
}
