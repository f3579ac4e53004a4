import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

/**
 * Run webhooks in a second format: A2A push notifications (the task, with the client's token),
 * beside the gateway's own `run.settled` payload. Existing rows keep the gateway's format.
 */
export class AddRunWebhookFormat1795700000000 implements MigrationInterface {
  name = 'AddRunWebhookFormat1795700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumns('run_webhooks', [
      new TableColumn({ name: 'format', type: 'varchar', length: '16', default: "'run'" }),
      new TableColumn({ name: 'token', type: 'varchar', length: '512', isNullable: true }),
    ]);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumns('run_webhooks', ['format', 'token']);
  }
}
