import { describe, expect, it } from '@jest/globals';
import { MAX_NAMED_STATEMENTS, StatementNames } from './statement-names.js';

describe('StatementNames', () => {
  it('names each text once, the same name every time, and no two texts alike', () => {
    const names = new StatementNames();
    const update = names.nameOf('UPDATE t SET v = $1 WHERE k = $2');
    expect(update).toMatch(/^svc_\d+$/);
    expect(names.nameOf('UPDATE t SET v = $1 WHERE k = $2')).toBe(update);
    expect(names.nameOf('DELETE FROM t WHERE k = $1')).not.toBe(update);
  });

  it('leaves unnamed a statement whose columns come from the table, and texts past the bound', () => {
    const names = new StatementNames();
    expect(names.nameOf('SELECT * FROM outbox WHERE id = $1')).toBeUndefined();
    expect(names.nameOf('UPDATE outbox SET n = 1 RETURNING  *')).toBeUndefined();
    expect(names.nameOf('SELECT id FROM outbox')).toBeDefined();
    for (let i = 0; i < MAX_NAMED_STATEMENTS; i++) names.nameOf(`SELECT ${i}`);
    expect(names.nameOf('SELECT id FROM outbox WHERE id = $1')).toBeUndefined();
    // Named before the bound was reached: still named.
    expect(names.nameOf('SELECT id FROM outbox')).toBeDefined();
  });
});
