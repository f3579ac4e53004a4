import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The marker of src/state/stored-text.ts, copied: a migration must not change with the code. */
const MARKER = '\uFDD0';

/**
 * From this version the outbox's free texts (`input_text`, `reply_text`) are stored as
 * `MARKER + JSON string` when PostgreSQL could not hold them as they are (NUL, lone
 * surrogates), and as they are otherwise. An older row that happens to start with the marker
 * would then be misread, so it is encoded here the same way; every other row is unchanged.
 */
export class EncodeOutboxMarkerText1795478400000 implements MigrationInterface {
  name = 'EncodeOutboxMarkerText1795478400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const postgres = queryRunner.connection.options.type === 'postgres';
    const p = (n: number) => (postgres ? `$${n}` : '?');
    for (const column of ['input_text', 'reply_text']) {
      const rows = (await queryRunner.query(
        `SELECT tenant_id, id, ${column} AS text FROM messaging_outbox
          WHERE substr(${column}, 1, 1) = ${p(1)}`,
        [MARKER],
      )) as Array<{ tenant_id: string; id: string; text: string }>;
      for (const row of rows) {
        await queryRunner.query(
          `UPDATE messaging_outbox SET ${column} = ${p(1)} WHERE tenant_id = ${p(2)} AND id = ${p(3)}`,
          [MARKER + JSON.stringify(row.text), row.tenant_id, row.id],
        );
      }
    }
  }

  async down(): Promise<void> {
    // Encoded rows stay readable as they are; nothing to undo.
  }
}
