import { Column, Entity, PrimaryColumn } from 'typeorm';
import { epochMs } from './epoch-ms.transformer.js';

/** One shared state entry, identified by the triple (tenant_id, session_id, key). */
@Entity({ name: 'state_entries' })
export class StateEntryEntity {
  @PrimaryColumn({ name: 'tenant_id', type: 'varchar', length: 128 })
  tenantId!: string;

  @PrimaryColumn({ name: 'session_id', type: 'varchar', length: 256 })
  sessionId!: string;

  @PrimaryColumn({ name: 'key', type: 'varchar', length: 256 })
  key!: string;

  /** The value as JSON text (the same bytes on both drivers). */
  @Column({ name: 'value', type: 'text' })
  value!: string;

  /** Starts at 1 and grows by one on every write: the optimistic-concurrency token. */
  @Column({ name: 'version', type: 'integer' })
  version!: number;

  @Column({ name: 'updated_at', type: 'bigint', transformer: epochMs })
  updatedAt!: number;
}
