import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { epochMs } from '../../platform/state/entities/epoch-ms.transformer.js';

/** One card of a tenant's board; `position` is 0-based and contiguous within its column. */
@Entity({ name: 'board_cards' })
@Index('idx_board_cards_tenant_column_position', ['tenantId', 'column', 'position'])
export class BoardCardEntity {
  @PrimaryColumn({ name: 'id', type: 'varchar', length: 36 })
  id!: string;

  @Column({ name: 'tenant_id', type: 'varchar', length: 128 })
  tenantId!: string;

  @Column({ name: 'column_name', type: 'varchar', length: 32 })
  column!: string;

  @Column({ name: 'position', type: 'integer' })
  position!: number;

  @Column({ name: 'title', type: 'varchar', length: 200 })
  title!: string;

  @Column({ name: 'description', type: 'text', default: '' })
  description!: string;

  @Column({ name: 'assignee', type: 'varchar', length: 128, nullable: true })
  assignee!: string | null;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochMs })
  createdAt!: number;

  @Column({ name: 'updated_at', type: 'bigint', transformer: epochMs })
  updatedAt!: number;
}
