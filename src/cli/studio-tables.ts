import type { StudioLoop, StudioSession, StudioSnapshot } from '../studio/studio-records.js';
import { type Column, textTable } from './text-table.js';

const TEXT_WIDTH = 40;

/** `2026-01-02T03:04:05.678Z` → `2026-01-02 03:04:05` (UTC, as the gateway records it). */
const time = (iso: string | null): string | null =>
  iso === null ? null : iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, '');

/** Seconds between start and end, or null while the loop has not ended. */
function duration(loop: StudioLoop): string | null {
  if (loop.ended_at === null) return null;
  const ms = Date.parse(loop.ended_at) - Date.parse(loop.started_at);
  return Number.isFinite(ms) ? `${(ms / 1000).toFixed(1)}s` : null;
}

const SESSION_COLUMNS: Array<Column<StudioSession>> = [
  { title: 'SESSION', value: (s) => s.id },
  { title: 'TENANT', value: (s) => s.tenant_id },
  { title: 'AGENT', value: (s) => s.agent },
  { title: 'TURNS', value: (s) => s.turns },
  { title: 'TOOL CALLS', value: (s) => s.tool_calls },
  { title: 'FINISH', value: (s) => s.finish_reason },
  { title: 'PROMPT', value: (s) => s.prompt, maxWidth: TEXT_WIDTH },
  { title: 'TEXT', value: (s) => s.text, maxWidth: TEXT_WIDTH },
];

const LOOP_COLUMNS: Array<Column<StudioLoop>> = [
  { title: 'RUN', value: (l) => l.run_id },
  { title: 'TENANT', value: (l) => l.tenant_id },
  { title: 'AGENT', value: (l) => l.agent },
  {
    title: 'STATUS',
    value: (l) => (l.pending_node ? `${l.status} at ${l.pending_node}` : l.status),
  },
  { title: 'TURNS', value: (l) => l.turns },
  { title: 'TOOL CALLS', value: (l) => l.tool_calls },
  { title: 'FINISH', value: (l) => l.finish_reason },
  { title: 'STARTED (UTC)', value: (l) => time(l.started_at) },
  { title: 'TOOK', value: duration },
  { title: 'SESSION', value: (l) => l.session_id },
];

/** `svc studio show`: the sessions table, the loops table and the counts. */
export function studioTables(snapshot: StudioSnapshot): string {
  const { sessions, loops, counts } = snapshot;
  const shown = (n: number, total: number) => (n === total ? `${total}` : `${n} of ${total}`);
  const totals = Object.entries(counts)
    .map(([name, value]) => `${name} ${value}`)
    .join(' · ');
  return (
    `Sessions (${shown(sessions.length, counts.sessions)})\n` +
    textTable(SESSION_COLUMNS, sessions) +
    `\nLoops (${shown(loops.length, counts.loops)})\n` +
    textTable(LOOP_COLUMNS, loops) +
    `\nCounts\n${totals}\n`
  );
}
