import {
  LOG_LEVEL_META_KEY,
  type LoggingLevel,
  type ServerContext,
} from '@modelcontextprotocol/server';

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
 * The level a client asked to hear log messages from: `logging/setLevel` on a legacy session
 * (kept per Server, so per session), or the 2026-07-28 request's own `_meta` log level. A client
 * that asked for nothing hears nothing: tool calls are not chatty by default.
 */
export class ClientLogLevel {
  private sessionLevel?: LoggingLevel;

  set(level: LoggingLevel): void {
    this.sessionLevel = level;
  }

  /** Whether a message at `level` is wanted by the client of this request. */
  wants(ctx: ServerContext, level: LoggingLevel): boolean {
    const requested = ctx.mcpReq.envelope?.[LOG_LEVEL_META_KEY as keyof typeof ctx.mcpReq.envelope];
    const threshold = typeof requested === 'string' ? requested : this.sessionLevel;
    return threshold !== undefined && SEVERITY.indexOf(level) >= SEVERITY.indexOf(threshold);
  }
}
