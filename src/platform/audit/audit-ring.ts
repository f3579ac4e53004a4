import type { RecordedAuditEvent } from './audit-event.js';

/** A bounded ring of one stream's audit events: a full ring drops its oldest. */
export class AuditRing {
  private readonly events: RecordedAuditEvent[] = [];
  private next = 0;

  constructor(private readonly capacity: number) {}

  get size(): number {
    return this.events.length;
  }

  push(event: RecordedAuditEvent): void {
    // Grows to capacity, then overwrites in place: no ring allocates more than it holds.
    if (this.events.length < this.capacity) this.events.push(event);
    else this.events[this.next] = event;
    this.next = (this.next + 1) % this.capacity;
  }

  /** Newest first. */
  *newestFirst(): Generator<RecordedAuditEvent> {
    const count = this.events.length;
    for (let i = 1; i <= count; i++) yield this.events[(this.next - i + count) % count];
  }
}
