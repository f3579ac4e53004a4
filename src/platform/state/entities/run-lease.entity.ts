import { Column, Entity, PrimaryColumn } from 'typeorm';
import { epochMs } from './epoch-ms.transformer.js';

/**
 * Who may execute a run right now. A lease is keyed by tenant and run id, so one tenant can never
 * block another's run id. Times are the database's clock (epoch ms), never a replica's.
 */
@Entity({ name: 'run_leases' })
export class RunLeaseEntity {
  @PrimaryColumn({ name: 'tenant_id', type: 'varchar', length: 128 })
  tenantId!: string;

  @PrimaryColumn({ name: 'run_id', type: 'varchar', length: 256 })
  runId!: string;

  /** The holder: `<hostname>:<pid>:<random>` of one process. */
  @Column({ name: 'owner', type: 'varchar', length: 256 })
  owner!: string;

  @Column({ name: 'acquired_at', type: 'bigint', transformer: epochMs })
  acquiredAt!: number;

  @Column({ name: 'expires_at', type: 'bigint', transformer: epochMs })
  expiresAt!: number;

  /** How many times an expired lease on this run was taken over by another owner. */
  @Column({ name: 'takeovers', type: 'integer', default: 0 })
  takeovers!: number;
}
