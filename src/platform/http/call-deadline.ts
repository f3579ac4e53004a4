import { LinkedAbort } from '../signals/linked-abort.js';

/**
 * The signal of one outgoing call: it aborts once `timeoutMs` have passed or when `caller`
 * aborts, whichever comes first, and `end()` lets go of the timer and the caller's signal.
 *
 * In place of `AbortSignal.timeout` plus `AbortSignal.any`: on Node 20 those hold the signal
 * through a WeakRef and a FinalizationRegistry, which only a full garbage collection clears, so
 * every call's signal, with whatever listened to it, outlived the young generation and was
 * promoted, and its timer stayed scheduled for the whole timeout after the call had ended.
 */
export class CallDeadline {
  private readonly link: LinkedAbort;
  private readonly timer: NodeJS.Timeout;
  private expired = false;

  constructor(timeoutMs: number, caller?: AbortSignal) {
    this.link = new LinkedAbort(caller ? [caller] : []);
    this.timer = setTimeout(() => {
      this.expired = true;
      this.link.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
    }, timeoutMs);
    this.timer.unref();
  }

  /** Aborts on the deadline or with the caller. */
  get signal(): AbortSignal {
    return this.link.signal;
  }

  /** Whether the deadline passed (the caller's abort does not count). */
  get timedOut(): boolean {
    return this.expired;
  }

  /** The call is over: the timer is cleared and the caller's signal forgets this one. */
  end(): void {
    clearTimeout(this.timer);
    this.link.unlink();
  }
}
