import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';

/** The Kanban board's cards (board database, SVC_BOARD_DB). Columns are names, not rows. */
export class CreateBoardCards1795392000000 implements MigrationInterface {
  name = 'CreateBoardCards1795392000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'board_cards',
        columns: [
          { name: 'id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'tenant_id', type: 'varchar', length: '128' },
          { name: 'column_name', type: 'varchar', length: '32' },
          { name: 'position', type: 'integer' },
          { name: 'title', type: 'varchar', length: '200' },
          { name: 'description', type: 'text', default: "''" },
          { name: 'assignee', type: 'varchar', length: '128', isNullable: true },
          { name: 'created_at', type: 'bigint' },
          { name: 'updated_at', type: 'bigint' },
        ],
      }),
    );
    // Not unique: renumbering shifts positions one row at a time, and sqlite (like PostgreSQL
    // without DEFERRABLE) checks uniqueness per row. The store keeps positions 0..n-1 per column
    // inside its transactions.
    await queryRunner.createIndex(
      'board_cards',
      new TableIndex({
        name: 'idx_board_cards_tenant_column_position',
        columnNames: ['tenant_id', 'column_name', 'position'],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('board_cards');
  }
}
