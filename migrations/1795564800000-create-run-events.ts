import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';

/**
 * The run event log: every run's events in order, numbered from 1 per run (`seq`, the SSE event
 * id). The primary key makes two writers of one run (an owner that lost its lease and the one
 * that took over) unable to give two events one number.
 */
export class CreateRunEvents1795564800000 implements MigrationInterface {
  name = 'CreateRunEvents1795564800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'run_events',
        columns: [
          { name: 'tenant_id', type: 'varchar', length: '128', isPrimary: true },
          { name: 'run_id', type: 'varchar', length: '256', isPrimary: true },
          { name: 'seq', type: 'integer', isPrimary: true },
          { name: 'type', type: 'varchar', length: '40' },
          { name: 'data', type: 'text' },
          { name: 'created_at', type: 'bigint' },
        ],
      }),
    );
    // Retention deletes by age.
    await queryRunner.createIndex(
      'run_events',
      new TableIndex({ name: 'idx_run_events_created', columnNames: ['created_at'] }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('run_events');
  }
}
