import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SVC_BIN, waitReady } from './support/cli.js';
import { inspectorLauncher } from './support/inspector.js';
import { freePort } from './support/net.js';
import { node22 } from './support/node22.js';
import {
  type ReadmeCommand,
  matchesShown,
  readmeCommands,
  readmeSection,
} from './support/readme-commands.js';

const ROOT = process.cwd();
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const run = promisify(execFile);

/**
 * The README's "First hour", command by command, as a new user runs it from a checkout: the
 * gateway as `npm start` serves it (the build, sqlite in ./data of a fresh directory, the echo
 * provider), the bundled example servers, `npm link`, MCP Inspector. Every command's output must
 * be what the README shows under it. Only the ports differ (free ones instead of 8080, 9000,
 * 9100), so the test can run beside others.
 */
describe('README: the first hour, as written', () => {
  const commands = readmeCommands(readmeSection(README, '## First hour'));
  const home = mkdtempSync(join(tmpdir(), 'svc-first-hour-'));
  const prefix = join(home, 'npm-global');
  const processes: ChildProcess[] = [];
  let gateway: ChildProcess | undefined;
  const ports = { gateway: 0, tools: 0, chat: 0 };

  const withPorts = (text: string) =>
    text
      .replace(/(localhost|127\.0\.0\.1):8080/g, `127.0.0.1:${ports.gateway}`)
      .replace(/127\.0\.0\.1:9000/g, `127.0.0.1:${ports.tools}`)
      .replace(/127\.0\.0\.1:9100/g, `127.0.0.1:${ports.chat}`);

  const shellEnv = (): NodeJS.ProcessEnv => ({
    PATH: `${join(prefix, 'bin')}:${process.env.PATH ?? ''}`,
    HOME: process.env.HOME,
    SVC_PORT: String(ports.gateway),
  });

  /** `npm start` with the variables the README puts before it, in the same directory. */
  async function startGateway(env: Record<string, string>): Promise<void> {
    if (gateway) {
      const stopped = new Promise((resolve) => gateway?.once('close', resolve));
      gateway.kill('SIGTERM');
      await stopped;
    }
    gateway = spawn(process.execPath, [SVC_BIN, 'serve'], {
      cwd: home,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        SVC_PORT: String(ports.gateway),
        ...env,
      },
      stdio: 'ignore',
    });
    await waitReady(`http://127.0.0.1:${ports.gateway}`, 30_000);
  }

  async function startExample(name: string): Promise<void> {
    const port = name === 'tools' ? ports.tools : ports.chat;
    const child = spawn(
      process.execPath,
      [join(ROOT, 'examples', `${name === 'tools' ? 'tool-server' : 'chat-sink'}.mjs`)],
      {
        env: {
          PATH: process.env.PATH,
          EXAMPLE_TOOLS_PORT: String(ports.tools),
          EXAMPLE_CHAT_PORT: String(ports.chat),
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    processes.push(child);
    await new Promise<void>((resolve, reject) => {
      child.stdout?.once('data', () => resolve());
      child.once('exit', (code) => reject(new Error(`example ${name} exited with ${code}`)));
    });
    expect(port).toBeGreaterThan(0);
  }

  /** Runs one README command; the output it printed. */
  async function execute({ command }: ReadmeCommand): Promise<string> {
    const start = /^((?:[A-Z_]+=\S+ )*)npm start$/.exec(command);
    if (start) {
      const env = Object.fromEntries(
        (start[1] ?? '')
          .trim()
          .split(' ')
          .filter(Boolean)
          .map((pair) => withPorts(pair).split('=', 2) as [string, string]),
      );
      await startGateway(env);
      return '';
    }
    const example = /^npm run example:(tools|chat)$/.exec(command);
    if (example) {
      await startExample(example[1]);
      return '';
    }
    if (command === 'npm link') {
      // What `npm link` does, into a prefix of the test's own instead of the global one.
      await run('npm', [
        'install',
        '--global',
        '--prefix',
        prefix,
        '--no-audit',
        '--no-fund',
        ROOT,
      ]);
      return '';
    }
    const shell = withPorts(command).replace(
      /^npx @modelcontextprotocol\/inspector@latest /,
      `"${node22()}" "${inspectorLauncher()}" `,
    );
    const { stdout } = await run('bash', ['-c', shell], { env: shellEnv(), timeout: 60_000 });
    return stdout;
  }

  beforeAll(async () => {
    ports.gateway = await freePort();
    ports.tools = await freePort();
    ports.chat = await freePort();
    await startGateway({});
  }, 60_000);

  afterAll(async () => {
    const running = [...processes, gateway].filter(
      (child): child is ChildProcess => child !== undefined && child.exitCode === null,
    );
    const closed = running.map((child) => new Promise((resolve) => child.once('close', resolve)));
    for (const child of running) child.kill('SIGTERM');
    await Promise.all(closed);
  });

  it('has commands to run', () => {
    expect(commands.length).toBeGreaterThan(10);
  });

  it('prints what the README shows, command by command', async () => {
    for (const step of commands) {
      // A read (no body, no method) may be asked again while what it shows is on its way (a chat
      // delivery); anything else runs once.
      const rereadable = !/ -d | -X /.test(step.command) && step.command.startsWith('curl ');
      const deadline = Date.now() + (rereadable ? 15_000 : 0);
      let output = await execute(step);
      while (step.expected && !matchesShown(output, step.expected) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        output = await execute(step);
      }
      if (step.expected) {
        expect({ command: step.command, output: output.trim() }).toEqual({
          command: step.command,
          output: matchesShown(output, step.expected) ? output.trim() : `(shown) ${step.expected}`,
        });
      }
    }
  }, 300_000);
});
