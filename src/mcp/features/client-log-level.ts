import type { LoggingLevel, ServerContext } from '@modelcontextprotocol/server';
import { LOG_LEVEL_META_KEY } from '../../tools/mcp-sdk.js';

const SEVERITY: readonly LoggingLevel[] = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
];

/**
 * The level a client asked to hear log messages from: the 2026-07-28 request's own `_meta` log
 * level, or what `logging/setLevel` said on a 2025 session (kept here, one instance per
 * session's Server; `set` is only wired for sessions). Nothing else: a client that asked for
 * nothing hears nothing (tool calls are not chatty by default), and no level outlives the
 * session or request it was given for.
 */
export class ClientLogLevel {
  private sessionLevel?: LoggingLevel;

  set(level: LoggingLevel): void {
    this.sessionLevel = level;
  }

  /** The least severe level the client of this request hears, if it asked to hear any. */
  threshold(ctx: ServerContext): LoggingLevel | undefined {
    const requested = ctx.mcpReq.envelope?.[LOG_LEVEL_META_KEY as keyof typeof ctx.mcpReq.envelope];
    return typeof requested === 'string' && SEVERITY.includes(requested)
      ? requested
      : this.sessionLevel;
  }

  /** Whether a message at `level` is wanted by the client of this request. */
  wants(ctx: ServerContext, level: LoggingLevel): boolean {
    const threshold = this.threshold(ctx);
    return threshold !== undefined && SEVERITY.indexOf(level) >= SEVERITY.indexOf(threshold);
  }
}
