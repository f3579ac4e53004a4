import { MigrationInterface, QueryRunner, Table } from 'typeorm';

/**
 * The token usage ledger (issue 17): what each tenant's model calls spent, summed per UTC day,
 * agent and model. Every model call adds to its row in one `INSERT … ON CONFLICT … DO UPDATE`
 * statement, so a month of a tenant is a few rows (days × agents × models), never one per run.
 * The primary key serves the budget check and the reports: one tenant, a range of days.
 */
export class CreateTokenUsage1795900000000 implements MigrationInterface {
  name = 'CreateTokenUsage1795900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'token_usage',
        columns: [
          { name: 'tenant_id', type: 'varchar', length: '128', isPrimary: true },
          // `YYYY-MM-DD` (UTC): sorts and compares as text on both databases.
          { name: 'day', type: 'varchar', length: '10', isPrimary: true },
          { name: 'agent', type: 'varchar', length: '128', isPrimary: true },
          { name: 'model', type: 'varchar', length: '256', isPrimary: true },
          { name: 'prompt_tokens', type: 'bigint', default: 0 },
          { name: 'completion_tokens', type: 'bigint', default: 0 },
          { name: 'calls', type: 'bigint', default: 0 },
          { name: 'runs', type: 'bigint', default: 0 },
          { name: 'updated_at', type: 'bigint' },
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('token_usage');
  }
}
