import { execFile, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { node22 } from './node22.js';

const CACHE = join(process.cwd(), 'node_modules', '.cache', 'mcp-inspector');
const LAUNCHER = join(
  CACHE,
  'node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js',
);

/**
 * MCP Inspector 2.x, the tool a person points at an MCP server first. It needs Node ≥ 22.19, so
 * it is not a dev dependency (its engines would warn on every `npm ci` here): it is installed
 * once from the npm registry into node_modules/.cache and run on node22().
 */
export function inspectorLauncher(): string {
  if (!existsSync(LAUNCHER)) {
    execFileSync(
      'npm',
      [
        'install',
        '--no-save',
        '--no-audit',
        '--no-fund',
        '--prefix',
        CACHE,
        '@modelcontextprotocol/inspector@2',
      ],
      { stdio: 'ignore' },
    );
  }
  return LAUNCHER;
}

export interface InspectorResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `inspector --cli <url> --transport http …args`, as the README shows it. */
export async function inspectorCli(url: string, args: string[]): Promise<InspectorResult> {
  const run = promisify(execFile);
  try {
    const { stdout, stderr } = await run(
      node22(),
      [inspectorLauncher(), '--cli', url, '--transport', 'http', ...args],
      { timeout: 60_000 },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return {
      code: typeof failed.code === 'number' ? failed.code : 1,
      stdout: failed.stdout ?? '',
      stderr: failed.stderr ?? '',
    };
  }
}
