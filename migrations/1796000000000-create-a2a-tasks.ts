import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';

/**
 * The tasks a tenant's agents were sent over A2A, for ListTasks: one row per task (a run),
 * with what the listing filters and orders by (agent, context, status, when the status last
 * changed), so a page is one indexed query. The rows follow the run's status and are deleted
 * with the run's event log retention.
 */
export class CreateA2ATasks1796000000000 implements MigrationInterface {
  name = 'CreateA2ATasks1796000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'a2a_tasks',
        columns: [
          { name: 'tenant_id', type: 'varchar', length: '128', isPrimary: true },
          { name: 'task_id', type: 'varchar', length: '256', isPrimary: true },
          { name: 'agent', type: 'varchar', length: '128' },
          { name: 'context_id', type: 'varchar', length: '256' },
          { name: 'status', type: 'varchar', length: '16' },
          { name: 'status_at', type: 'bigint' },
          { name: 'created_at', type: 'bigint' },
        ],
      }),
    );
    // ListTasks: one agent's tasks, newest status first (the cursor is (status_at, task_id)).
    await queryRunner.createIndex(
      'a2a_tasks',
      new TableIndex({
        name: 'idx_a2a_tasks_listing',
        columnNames: ['tenant_id', 'agent', 'status_at', 'task_id'],
      }),
    );
    // Retention deletes by age.
    await queryRunner.createIndex(
      'a2a_tasks',
      new TableIndex({ name: 'idx_a2a_tasks_status_at', columnNames: ['status_at'] }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('a2a_tasks');
  }
}
