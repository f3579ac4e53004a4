import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';

/**
 * The messaging outbox: one row per accepted inbound chat event, from "its run is under way"
 * to "its reply was delivered" (or failed). The primary key is the inbound event's dedupe key.
 */
export class CreateMessagingOutbox1795392000000 implements MigrationInterface {
  name = 'CreateMessagingOutbox1795392000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'messaging_outbox',
        columns: [
          { name: 'tenant_id', type: 'varchar', length: '128', isPrimary: true },
          { name: 'id', type: 'varchar', length: '64', isPrimary: true },
          { name: 'channel', type: 'varchar', length: '16' },
          { name: 'conversation_id', type: 'varchar', length: '256' },
          { name: 'event_id', type: 'varchar', length: '256' },
          { name: 'sender', type: 'varchar', length: '256' },
          { name: 'input_text', type: 'text' },
          { name: 'session_id', type: 'varchar', length: '64' },
          { name: 'actor', type: 'varchar', length: '256' },
          { name: 'status', type: 'varchar', length: '16' },
          { name: 'reply_text', type: 'text', isNullable: true },
          { name: 'attempts', type: 'integer', default: 0 },
          { name: 'next_attempt_at', type: 'bigint' },
          { name: 'created_at', type: 'bigint' },
          { name: 'updated_at', type: 'bigint' },
          { name: 'delivered_at', type: 'bigint', isNullable: true },
          { name: 'last_error', type: 'varchar', length: '500', isNullable: true },
        ],
      }),
    );
    // The worker's query: unfinished rows that are due, oldest first.
    await queryRunner.createIndex(
      'messaging_outbox',
      new TableIndex({
        name: 'idx_messaging_outbox_due',
        columnNames: ['status', 'next_attempt_at'],
      }),
    );
    // A tenant's deliveries, newest first (GET /v1/messaging/outbox).
    await queryRunner.createIndex(
      'messaging_outbox',
      new TableIndex({
        name: 'idx_messaging_outbox_tenant',
        columnNames: ['tenant_id', 'created_at'],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('messaging_outbox');
  }
}
