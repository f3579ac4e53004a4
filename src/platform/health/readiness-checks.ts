import { Injectable } from '@nestjs/common';
import type { DataSourceReadiness } from '../state/migrated-data-source.js';

/** What a database the replica serves from says about itself, as /readyz reports it. */
export type DatabaseReadiness = DataSourceReadiness;

export type ReadinessCheck = () => Promise<DatabaseReadiness>;

/**
 * Databases besides the state backend that this replica's readiness depends on (the board's
 * PostgreSQL pool). A feature adds its check at module init; the platform names no feature.
 */
@Injectable()
export class ReadinessChecks {
  private readonly checks = new Map<string, ReadinessCheck>();

  /** `name` is the key of the database in the /readyz body. */
  add(name: string, check: ReadinessCheck): void {
    if (this.checks.has(name)) throw new Error(`readiness check "${name}" is added twice`);
    this.checks.set(name, check);
  }

  entries(): Array<[string, ReadinessCheck]> {
    return [...this.checks];
  }
}
