import type { Logger } from '@nestjs/common';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** Commits on the connection between two checkpoints (about SQLite's own 1,000 WAL pages). */
export const COMMITS_PER_CHECKPOINT = 100;

/** What the connection falls back to when the thread is gone: SQLite's default. */
export const CONNECTION_CHECKPOINT_PAGES = 1_000;

/**
 * The checkpoint thread's code, evaluated as CommonJS (a file would need a build step of its
 * own and a path that differs between dist/ and the TypeScript tests). It opens the database
 * file with a connection of its own and copies the WAL into it when asked: PASSIVE, so it
 * never waits for, or blocks, the writer on the main thread.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path, { fileMustExist: true, timeout: workerData.busyTimeoutMs });
parentPort.on('message', (message) => {
  if (message === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  const [result] = db.pragma('wal_checkpoint(PASSIVE)');
  parentPort.postMessage(result);
});
`;

export interface CheckpointResult {
  /** 1 when the checkpoint could not run (another one held the lock). */
  busy: number;
  /** Frames in the WAL when it ran. */
  log: number;
  /** Frames of them now in the database file. */
  checkpointed: number;
}

export interface SqliteCheckpointerOptions {
  /** The database file (WAL mode). */
  path: string;
  busyTimeoutMs: number;
  logger: Logger;
  /** The thread failed: the connection must checkpoint again itself (its pages, as it was). */
  onFailed(pages: number): void;
}

/**
 * Moves SQLite's WAL checkpoints off the event loop. better-sqlite3 is synchronous, and a
 * checkpoint (run by the commit that passes 1,000 WAL pages: copy the pages into the database
 * file, fsync both files) held the whole process for about 10 ms every 40 echo runs on the
 * development machine, which was the 98th-99th percentile of a run's latency at one request
 * in flight; on a slow disk it is longer. Here a worker thread with its own connection does
 * it after every COMMITS_PER_CHECKPOINT commits; the main connection keeps a far larger
 * auto-checkpoint as a bound (see sqliteConnection): under unbroken writes the thread's
 * passive checkpoints never find the WAL fully copied at the moment a writer begins, which is
 * when SQLite starts the log over, so the connection still does it now and then, finding most
 * pages copied already.
 *
 * The thread (about 16 MB) starts with the first checkpoint, so a gateway that writes little
 * never has it. If it fails, the connection checkpoints itself again, as SQLite does by default.
 */
export class SqliteCheckpointer {
  private worker?: Worker;
  /** Settles when the thread has ended (for whatever reason). */
  private exited?: Promise<void>;
  private commits = 0;
  private inFlight = false;
  private failed = false;
  private closed = false;
  private completed = 0;

  constructor(private readonly options: SqliteCheckpointerOptions) {}

  /** Checkpoints the thread has finished (tests, diagnostics). */
  get checkpoints(): number {
    return this.completed;
  }

  /** A checkpoint was asked for and the thread has not answered yet. */
  get waiting(): boolean {
    return this.inFlight;
  }

  /** One transaction was committed on the main connection. */
  committed(): void {
    if (++this.commits < COMMITS_PER_CHECKPOINT || this.inFlight || this.failed || this.closed)
      return;
    this.commits = 0;
    this.inFlight = true;
    (this.worker ??= this.start()).postMessage('checkpoint');
  }

  /** Stops the thread (its connection closes first), before the main connection closes. */
  async close(): Promise<void> {
    const worker = this.worker;
    if (!this.closed && worker) {
      worker.postMessage('close');
      const timer = setTimeout(() => void worker.terminate(), 2_000);
      void this.exited!.then(() => clearTimeout(timer));
    }
    this.closed = true;
    await this.exited;
  }

  private start(): Worker {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        driver: createRequire(import.meta.url).resolve('better-sqlite3'),
        path: this.options.path,
        busyTimeoutMs: this.options.busyTimeoutMs,
      },
      resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 2 },
    });
    // It never keeps a process alive that has nothing else to do.
    worker.unref();
    this.exited = new Promise((resolve) => worker.once('exit', () => resolve()));
    worker.on('message', (result: CheckpointResult) => {
      this.inFlight = false;
      if (result.busy === 0) this.completed += 1;
    });
    worker.on('error', (error) => this.fail(error.message));
    worker.on('exit', (code) => {
      if (!this.closed) this.fail(`exited with code ${code}`);
    });
    return worker;
  }

  private fail(reason: string): void {
    if (this.failed || this.closed) return;
    this.failed = true;
    this.options.logger.warn(
      `sqlite checkpoint thread failed (${reason}); the connection checkpoints itself again`,
    );
    this.options.onFailed(CONNECTION_CHECKPOINT_PAGES);
  }
}
