import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';

/** State entries and run leases; written with the QueryRunner schema API so it serves both drivers. */
export class CreateStateTables1795305600000 implements MigrationInterface {
  name = 'CreateStateTables1795305600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'state_entries',
        columns: [
          { name: 'tenant_id', type: 'varchar', length: '128', isPrimary: true },
          { name: 'session_id', type: 'varchar', length: '256', isPrimary: true },
          { name: 'key', type: 'varchar', length: '256', isPrimary: true },
          { name: 'value', type: 'text' },
          { name: 'version', type: 'integer' },
          { name: 'updated_at', type: 'bigint' },
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'run_leases',
        columns: [
          { name: 'tenant_id', type: 'varchar', length: '128', isPrimary: true },
          { name: 'run_id', type: 'varchar', length: '256', isPrimary: true },
          { name: 'owner', type: 'varchar', length: '256' },
          { name: 'acquired_at', type: 'bigint' },
          { name: 'expires_at', type: 'bigint' },
          { name: 'takeovers', type: 'integer', default: 0 },
        ],
      }),
    );
    // Shutdown releases every lease of one owner at once.
    await queryRunner.createIndex(
      'run_leases',
      new TableIndex({ name: 'idx_run_leases_owner', columnNames: ['owner'] }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('run_leases');
    await queryRunner.dropTable('state_entries');
  }
}
