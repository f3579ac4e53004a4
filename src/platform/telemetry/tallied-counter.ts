import type { Attributes, Meter } from '@opentelemetry/api';

/**
 * A counter whose counts are kept here, one per label set, and reported by an observable counter
 * when metrics are collected: the same monotonic sum a synchronous counter gives. Adding costs a
 * map lookup by a key the caller already has; a synchronous counter hashes its attributes on
 * every add (the SDK sorts their keys and JSON-encodes them: with the rest of a data point's
 * recording, about 1 % of a tool call's profile samples per data point). For counts made on
 * every request; the label values must be bounded (see BoundedLabel).
 */
export class TalliedCounter {
  private readonly tallies = new Map<string, { attributes: Attributes; count: number }>();

  constructor(meter: Meter, name: string, description: string) {
    meter.createObservableCounter(name, { description }).addCallback((result) => {
      for (const { attributes, count } of this.tallies.values()) result.observe(count, attributes);
    });
  }

  /** Adds one to the series `key` names; `attributes` makes its labels the first time. */
  increment(key: string, attributes: () => Attributes): void {
    const tally = this.tallies.get(key);
    if (tally) tally.count += 1;
    else this.tallies.set(key, { attributes: attributes(), count: 1 });
  }
}
