import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';

/**
 * Run webhooks: one row per run that asked for one, from "waiting for the run to settle" to
 * "delivered" (or failed). The run is the key: a run's settled state is delivered once.
 */
export class CreateRunWebhooks1795600000000 implements MigrationInterface {
  name = 'CreateRunWebhooks1795600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'run_webhooks',
        columns: [
          { name: 'tenant_id', type: 'varchar', length: '128', isPrimary: true },
          { name: 'run_id', type: 'varchar', length: '256', isPrimary: true },
          { name: 'url', type: 'varchar', length: '2048' },
          { name: 'status', type: 'varchar', length: '16' },
          { name: 'attempts', type: 'integer', default: 0 },
          { name: 'next_attempt_at', type: 'bigint' },
          { name: 'created_at', type: 'bigint' },
          { name: 'updated_at', type: 'bigint' },
          { name: 'delivered_at', type: 'bigint', isNullable: true },
          { name: 'last_error', type: 'varchar', length: '500', isNullable: true },
        ],
      }),
    );
    // The worker's query: unfinished rows that are due.
    await queryRunner.createIndex(
      'run_webhooks',
      new TableIndex({ name: 'idx_run_webhooks_due', columnNames: ['status', 'next_attempt_at'] }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('run_webhooks');
  }
}
