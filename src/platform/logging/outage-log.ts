import type { Logger } from '@nestjs/common';

/**
 * The log of something that keeps retrying on its own (a sweep, a poll, lease renewals, the
 * state backend itself): a failure is logged when it starts, not on every tick, and again only
 * when it fails another way; the first success after it says so once.
 */
export class OutageLog {
  /** The name of the error being reported, while failing. */
  private failing: string | null = null;

  constructor(
    private readonly logger: Logger,
    private readonly what: string,
  ) {}

  get down(): boolean {
    return this.failing !== null;
  }

  failed(err: unknown): void {
    const kind = err instanceof Error ? err.name : typeof err;
    if (this.failing === kind) return;
    this.failing = kind;
    this.logger.warn({ err }, `${this.what} failed; retrying until it works again`);
  }

  succeeded(): void {
    if (this.failing === null) return;
    this.failing = null;
    this.logger.log(`${this.what} works again`);
  }
}
