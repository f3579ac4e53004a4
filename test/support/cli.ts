import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The built CLI as `svc` runs it, the bundle of `npm run build` (scripts/bundle.mjs):
 * nest-commander cannot load under jest, so the CLI is tested as a real process.
 */
export const SVC_BIN = fileURLToPath(new URL('../../dist/svc/main.js', import.meta.url));
/** The same CLI as tsc built it, before the bundle: what the bundle must behave like. */
export const SVC_UNBUNDLED_BIN = fileURLToPath(new URL('../../dist/src/main.js', import.meta.url));

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function assertBuilt(bin: string): void {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run "npm run build" first`);
}

/**
 * Only PATH and HOME from the outside, so the developer's own SVC_ variables never leak in; the
 * board gets a temp file unless the test names one (never ./data in the checkout).
 */
function cleanEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const board = join(mkdtempSync(join(tmpdir(), 'svc-board-')), 'board.sqlite');
  return { PATH: process.env.PATH, HOME: process.env.HOME, SVC_BOARD_DB: board, ...env };
}

export function spawnSvc(
  args: string[],
  env: Record<string, string> = {},
  cwd?: string,
  bin = SVC_BIN,
): ChildProcess {
  assertBuilt(bin);
  return spawn(process.execPath, [bin, ...args], { env: cleanEnv(env), cwd, stdio: 'pipe' });
}

/** Runs `svc …` to completion (killed after `timeoutMs`). */
export function runSvc(
  args: string[],
  env: Record<string, string> = {},
  timeoutMs = 20_000,
): Promise<CliResult> {
  const child = spawnSvc(args, env);
  return collect(child, timeoutMs);
}

export function collect(child: ChildProcess, timeoutMs = 20_000): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** Polls `/readyz` until the gateway at `url` answers 200. */
export async function waitReady(url: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if ((await fetch(`${url}/readyz`)).status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} never became ready`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
