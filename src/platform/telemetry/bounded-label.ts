/**
 * A metric label whose values come from tenants (agent and toolset names): the first `limit`
 * distinct values are reported as they are, any later one as `other`, so one tenant registering
 * thousands of names cannot blow up the number of series.
 */
export class BoundedLabel {
  static readonly OVERFLOW = 'other';
  private readonly seen = new Set<string>();

  constructor(readonly limit: number) {}

  value(raw: string): string {
    if (this.seen.has(raw)) return raw;
    if (this.seen.size >= this.limit) return BoundedLabel.OVERFLOW;
    this.seen.add(raw);
    return raw;
  }
}
