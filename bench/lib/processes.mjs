import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { get } from 'node:http';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { scoped } from './cleanup.mjs';

/** Children still running; killed synchronously if the runner exits without cleaning up. */
const live = new Set();
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** A port that was free a moment ago (listen on 0, read it, close). */
export async function freePort() {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  server.close();
  await once(server, 'close');
  return port;
}

/** CPU time (user + system, all threads) the process has used so far, in microseconds. */
export async function cpuMicros(pid) {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // Fields after "(comm)": state is field 3, utime field 14, stime field 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / CLK_TCK;
}

/**
 * Resident memory of the process now (VmRSS) and its high-water mark since it started (VmHWM),
 * in MiB, from `/proc/<pid>/status`.
 */
export async function memoryOf(pid) {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]);
  return { rssMb: kb('VmRSS') / 1024, hwmMb: kb('VmHWM') / 1024 };
}

/**
 * Starts `node <args>` as a child process (stdout ignored: the gateway logs JSON there) and
 * registers its stop with the cleanup registry. stop(): SIGTERM, then SIGKILL after 5 s.
 */
export function startNode(name, args, { env, cwd }) {
  const child = spawn(process.execPath, args, { cwd, env, stdio: ['pipe', 'ignore', 'pipe'] });
  live.add(child);
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  let exit;
  const exited = new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      live.delete(child);
      exit = { code, signal };
      resolve(exit);
    });
  });
  child.once('error', (error) => {
    stderr += `\nspawn error: ${error.message}`;
  });
  const stop = scoped(async () => {
    if (exit) return;
    child.kill('SIGTERM');
    const force = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(force);
  });
  return {
    name,
    pid: child.pid,
    exitInfo: () => exit,
    stderr: () => stderr.trim(),
    stop,
  };
}

function statusOf(url, headers) {
  return new Promise((resolve, reject) => {
    const request = get(url, { headers, timeout: 1_000 }, (response) => {
      response.resume();
      response.once('end', () => resolve(response.statusCode));
    });
    request.once('timeout', () => request.destroy(new Error('timed out')));
    request.once('error', reject);
  });
}

/** Polls `url` until anything answers there (any status): for servers without a probe. */
export async function waitForAnswer(child, url, { timeoutMs = 20_000 } = {}) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const exit = child.exitInfo();
    if (exit)
      throw new Error(`${child.name} exited (${exit.code ?? exit.signal}): ${child.stderr()}`);
    try {
      await statusOf(url, {});
      return;
    } catch {
      await sleep(100);
    }
  }
  throw new Error(`${child.name} did not answer at ${url} within ${timeoutMs} ms`);
}

/**
 * Polls `url` every `intervalMs` until it answers 200; fails early when the child exits. A start
 * time measured with it is late by up to one interval.
 */
export async function waitFor200(
  child,
  url,
  { headers = {}, timeoutMs = 20_000, intervalMs = 100 } = {},
) {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    const exit = child.exitInfo();
    if (exit) {
      throw new Error(`${child.name} exited (${exit.code ?? exit.signal}): ${child.stderr()}`);
    }
    try {
      const status = await statusOf(url, headers);
      if (status === 200) return;
      last = `HTTP ${status}`;
    } catch (error) {
      last = error.message;
    }
    await sleep(intervalMs);
  }
  throw new Error(`${child.name} not ready at ${url} within ${timeoutMs} ms (${last})`);
}
