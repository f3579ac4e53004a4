import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';

/**
 * The studio in the state backend (SVC_STUDIO_STORE=state): one loop per (tenant, run) and one
 * session per (tenant, session), each the studio record as JSON (`record`, in format `format`)
 * beside the columns it is sorted, counted and pruned by. Times are epoch ms.
 */
export class CreateStudioTables1795800000001 implements MigrationInterface {
  name = 'CreateStudioTables1795800000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'studio_loops',
        columns: [
          { name: 'tenant_id', type: 'varchar', length: '128', isPrimary: true },
          { name: 'run_id', type: 'varchar', length: '256', isPrimary: true },
          { name: 'id', type: 'varchar', length: '36' },
          { name: 'status', type: 'varchar', length: '16' },
          { name: 'started_ms', type: 'bigint' },
          { name: 'updated_ms', type: 'bigint' },
          { name: 'format', type: 'integer' },
          { name: 'record', type: 'text' },
        ],
      }),
    );
    await queryRunner.createIndex(
      'studio_loops',
      new TableIndex({ name: 'idx_studio_loops_tenant', columnNames: ['tenant_id', 'started_ms'] }),
    );
    await queryRunner.createIndex(
      'studio_loops',
      new TableIndex({ name: 'idx_studio_loops_started', columnNames: ['started_ms'] }),
    );
    await queryRunner.createIndex(
      'studio_loops',
      new TableIndex({ name: 'idx_studio_loops_status', columnNames: ['tenant_id', 'status'] }),
    );
    await queryRunner.createIndex(
      'studio_loops',
      new TableIndex({ name: 'idx_studio_loops_updated', columnNames: ['updated_ms'] }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'studio_sessions',
        columns: [
          { name: 'tenant_id', type: 'varchar', length: '128', isPrimary: true },
          { name: 'session_id', type: 'varchar', length: '256', isPrimary: true },
          { name: 'runs', type: 'integer' },
          { name: 'updated_ms', type: 'bigint' },
          { name: 'format', type: 'integer' },
          { name: 'record', type: 'text' },
        ],
      }),
    );
    await queryRunner.createIndex(
      'studio_sessions',
      new TableIndex({
        name: 'idx_studio_sessions_tenant',
        columnNames: ['tenant_id', 'updated_ms'],
      }),
    );
    await queryRunner.createIndex(
      'studio_sessions',
      new TableIndex({ name: 'idx_studio_sessions_updated', columnNames: ['updated_ms'] }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('studio_sessions');
    await queryRunner.dropTable('studio_loops');
  }
}
