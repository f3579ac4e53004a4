import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { Logger } from '@nestjs/common';
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitUntil } from '../../../test/support/chat-server.js';
import { COMMITS_PER_CHECKPOINT, SqliteCheckpointer } from './sqlite-checkpointer.js';
import { SqliteStatements } from './sqlite-statements.js';

describe('SqliteCheckpointer', () => {
  let dir: string;
  let path: string;
  let db: Database.Database;
  let checkpointer: SqliteCheckpointer;
  let statements: SqliteStatements;
  let fellBackTo: number[];
  let warnings: string[];

  const logger = { warn: (message: string) => warnings.push(message) } as unknown as Logger;

  function open(file: string): void {
    checkpointer = new SqliteCheckpointer({
      path: file,
      busyTimeoutMs: 1_000,
      logger,
      onFailed: (pages) => {
        fellBackTo.push(pages);
        db.pragma(`wal_autocheckpoint = ${pages}`);
      },
    });
    statements = new SqliteStatements(db, () => checkpointer.committed());
  }

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-sqlite-checkpointer-'));
    path = join(dir, 'state.sqlite');
    db = new Database(path);
    db.pragma('journal_mode = WAL');
    // The connection itself never checkpoints here: whatever reaches the file, the thread copied.
    db.pragma('wal_autocheckpoint = 0');
    db.exec('CREATE TABLE t (k TEXT PRIMARY KEY, v TEXT NOT NULL)');
    fellBackTo = [];
    warnings = [];
    open(path);
  });

  afterEach(async () => {
    await checkpointer.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const write = (i: number) =>
    statements.run('INSERT OR REPLACE INTO t (k, v) VALUES (?, ?)', [
      `k${i % 50}`,
      'x'.repeat(500),
    ]);
  const fileBytes = () => statSync(path).size;

  it('copies the WAL into the database file on its thread after every hundred commits', async () => {
    const before = fileBytes();
    for (let i = 0; i < COMMITS_PER_CHECKPOINT - 1; i++) await write(i);
    // Nothing yet: no thread was started, the pages are only in the WAL.
    expect(checkpointer.checkpoints).toBe(0);
    expect(fileBytes()).toBe(before);

    await write(COMMITS_PER_CHECKPOINT);
    await waitUntil(() => checkpointer.checkpoints === 1, 'the first checkpoint');
    expect(fileBytes()).toBeGreaterThan(before + 50 * 500);
    const [{ log, checkpointed }] = db.pragma('wal_checkpoint(PASSIVE)') as Array<{
      log: number;
      checkpointed: number;
    }>;
    // The connection's own checkpoint finds the pages the thread copied (and copies none).
    expect(checkpointed).toBe(log);

    for (let i = 0; i < COMMITS_PER_CHECKPOINT; i++) await write(i);
    await waitUntil(() => checkpointer.checkpoints === 2, 'the second checkpoint');
    expect(warnings).toEqual([]);
    expect(fellBackTo).toEqual([]);
  });

  it('counts grouped writes as one commit, and reads as none', async () => {
    // Two hundred writes asked for at once are one transaction.
    await Promise.all(Array.from({ length: 2 * COMMITS_PER_CHECKPOINT }, (_, i) => write(i)));
    for (let i = 0; i < 2 * COMMITS_PER_CHECKPOINT; i++) {
      await statements.run('SELECT v FROM t WHERE k = ?', ['k1']);
    }
    // A checkpoint is asked for in the commit that reaches the count, synchronously.
    expect(checkpointer.waiting).toBe(false);
    expect(checkpointer.checkpoints).toBe(0);
  });

  it('hands checkpoints back to the connection when the thread cannot work', async () => {
    await checkpointer.close();
    open(join(dir, 'missing.sqlite')); // the thread's connection refuses a file that is not there
    for (let i = 0; i < COMMITS_PER_CHECKPOINT; i++) await write(i);
    await waitUntil(() => fellBackTo.length === 1, 'the fallback');
    expect(fellBackTo).toEqual([1_000]);
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1_000);
    expect(warnings).toEqual([expect.stringContaining('sqlite checkpoint thread failed')]);
    // Writes go on, and the failure is reported once.
    for (let i = 0; i < COMMITS_PER_CHECKPOINT; i++) await write(i);
    expect(warnings).toHaveLength(1);
  });

  it('stops its thread at close; later commits start none', async () => {
    for (let i = 0; i < COMMITS_PER_CHECKPOINT; i++) await write(i);
    await waitUntil(() => checkpointer.checkpoints === 1, 'the first checkpoint');
    await checkpointer.close();
    for (let i = 0; i < COMMITS_PER_CHECKPOINT; i++) await write(i);
    expect(checkpointer.waiting).toBe(false);
    expect(checkpointer.checkpoints).toBe(1);
    expect(warnings).toEqual([]);
  });
});
