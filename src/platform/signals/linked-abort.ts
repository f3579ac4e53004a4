/**
 * A controller that aborts when any of its sources aborts (with that source's reason) or when
 * told to; `unlink()` removes its listeners from the sources once the work it guards is over.
 *
 * In place of `AbortSignal.any`: on Node 20 every signal any() makes is held by each source
 * through a WeakRef and registered with a FinalizationRegistry, which only a full garbage
 * collection clears. Made once per run or request, each of them (with whatever listened to it)
 * outlived the young generation and was promoted; a long-lived source (the process's stop
 * signal) also kept a WeakRef per run for good.
 */
export class LinkedAbort {
  private readonly controller = new AbortController();
  private links: Array<{ source: AbortSignal; listener: () => void }> = [];

  constructor(sources: readonly AbortSignal[]) {
    for (const source of sources) {
      if (source.aborted) {
        this.abort(source.reason);
        return;
      }
      const listener = () => this.abort(source.reason);
      source.addEventListener('abort', listener, { once: true });
      this.links.push({ source, listener });
    }
  }

  /** Aborts with the first source that did, or with `abort(reason)`. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Aborts the signal (with an AbortError when no reason is given; a second abort keeps the first). */
  abort(reason?: unknown): void {
    if (!this.controller.signal.aborted) this.controller.abort(reason);
  }

  /** The work is over: the sources forget this signal (a later abort of theirs reaches nothing). */
  unlink(): void {
    for (const { source, listener } of this.links) source.removeEventListener('abort', listener);
    this.links = [];
  }
}
