import type { JsonValue } from '../platform/state/state-store.js';

/** How far a tool has got, as MCP's `notifications/progress` carries it. */
export interface ToolProgress {
  progress: number;
  total?: number;
  message?: string;
}

/** A log message a tool sent while it ran (MCP logging levels). */
export interface ToolLogEntry {
  level: 'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency';
  data: JsonValue;
}

/** Where a running tool's progress and log messages go (the MCP host relays them). */
export interface ToolReporter {
  onProgress?(progress: ToolProgress): void;
  onLog?(entry: ToolLogEntry): void;
  /** The least severe log level the listener wants; unset: it wants none (no need to ask). */
  logLevel?: ToolLogEntry['level'];
}

const LEVELS = new Set<string>([
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
]);

function isObject(value: unknown): value is Record<string, JsonValue> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** One event of a streamed tool answer, or null for one that says none of these. */
export type ToolStreamEvent =
  | { kind: 'progress'; progress: ToolProgress }
  | { kind: 'log'; entry: ToolLogEntry }
  | { kind: 'result'; result: JsonValue };

/**
 * An HTTP tool may answer `text/event-stream` instead of JSON, to report while it works: each
 * event's data is a JSON object with one of `progress` (`{"progress": 50, "total": 100,
 * "message": "…"}`), `log` (`{"log": {"level": "info", "data": …}}`) or `result` (the answer,
 * as a JSON body would hold it; the stream's last word). Anything else is ignored.
 */
export function parseToolStreamEvent(data: string): ToolStreamEvent | null {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return null;
  }
  if (!isObject(value)) return null;
  if ('result' in value) return { kind: 'result', result: value.result ?? null };
  if (typeof value.progress === 'number' && Number.isFinite(value.progress)) {
    return {
      kind: 'progress',
      progress: {
        progress: value.progress,
        ...(typeof value.total === 'number' ? { total: value.total } : {}),
        ...(typeof value.message === 'string' ? { message: value.message.slice(0, 1024) } : {}),
      },
    };
  }
  const log = value.log;
  if (isObject(log) && typeof log.level === 'string' && LEVELS.has(log.level)) {
    return {
      kind: 'log',
      entry: { level: log.level as ToolLogEntry['level'], data: log.data ?? null },
    };
  }
  return null;
}
