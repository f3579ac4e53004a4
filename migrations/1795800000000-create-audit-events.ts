import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';

/**
 * The audit trail in the state backend (SVC_AUDIT_STORE=state): one row per event, numbered in
 * insertion order (newest first is `id` descending; pages continue below an id). `tenant_id` is
 * null for events of no tenant (a wrong key); `run_id` is copied from the details so a run's
 * events are one index range. `at` is epoch ms (retention deletes by it).
 */
export class CreateAuditEvents1795800000000 implements MigrationInterface {
  name = 'CreateAuditEvents1795800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // sqlite numbers only an INTEGER PRIMARY KEY; PostgreSQL gets a 64-bit sequence.
    const postgres = queryRunner.connection.options.type === 'postgres';
    await queryRunner.createTable(
      new Table({
        name: 'audit_events',
        columns: [
          {
            name: 'id',
            type: postgres ? 'bigint' : 'integer',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          { name: 'tenant_id', type: 'varchar', length: '128', isNullable: true },
          { name: 'kind', type: 'varchar', length: '64' },
          { name: 'actor', type: 'varchar', length: '256', isNullable: true },
          { name: 'run_id', type: 'varchar', length: '256', isNullable: true },
          { name: 'at', type: 'bigint' },
          { name: 'details', type: 'text' },
        ],
      }),
    );
    await queryRunner.createIndex(
      'audit_events',
      new TableIndex({ name: 'idx_audit_events_tenant', columnNames: ['tenant_id', 'id'] }),
    );
    await queryRunner.createIndex(
      'audit_events',
      new TableIndex({ name: 'idx_audit_events_run', columnNames: ['tenant_id', 'run_id', 'id'] }),
    );
    await queryRunner.createIndex(
      'audit_events',
      new TableIndex({ name: 'idx_audit_events_at', columnNames: ['at'] }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('audit_events');
  }
}
