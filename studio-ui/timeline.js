// A run's timeline: the run, its turns (plain runs), tool calls, graph steps and approvals, each
// with its status, how long it took and a bar placing it within the run. Built from the run
// record (steps with their times, the answers of each turn) and its event log (tool calls,
// turn boundaries, approvals), so it is the same on every replica.

import { clip, clock, duration, el, emptyRow, timeBar } from './dom.js';

const ms = (iso) => {
  const value = Date.parse(iso ?? '');
  return Number.isNaN(value) ? null : value;
};

/** What an assistant message of a plain run said: its text, or the tools it asked for. */
function answerOf(message) {
  if (!message) return '';
  const calls = (message.tool_calls ?? []).map((call) => call.name ?? call.function?.name);
  if (calls.length > 0) return `asks for ${calls.join(', ')}`;
  return typeof message.content === 'string' ? message.content : '';
}

/** The turns of a plain run: each ends with a `run.progressed`; a new execution starts one. */
function turnsOf(record, events) {
  const answers = (record?.messages ?? []).filter((message) => message.role === 'assistant');
  const rows = [];
  let start = ms(record?.started_at);
  for (const event of events) {
    if (['run.started', 'run.taken_over', 'run.resumed'].includes(event.type)) {
      start = ms(event.at);
    } else if (event.type === 'run.progressed') {
      const number = event.data?.turns ?? rows.length + 1;
      rows.push({
        kind: 'turn',
        key: `turn/${number}`,
        name: `turn ${number}`,
        status: 'completed',
        start,
        end: ms(event.at),
        detail: answerOf(answers[number - 1]),
      });
      start = ms(event.at);
    }
  }
  if (record && ['queued', 'running'].includes(record.status)) {
    const number = rows.length + 1;
    rows.push({
      kind: 'turn',
      key: `turn/${number}`,
      name: `turn ${number}`,
      status: 'running',
      start,
      end: null,
      detail: '',
    });
  }
  return rows;
}

function toolsOf(events) {
  const calls = new Map();
  for (const event of events) {
    if (event.type !== 'tool.started' && event.type !== 'tool.finished') continue;
    const d = event.data ?? {};
    const key = `tool/${d.step ?? ''}/${d.call_id}`;
    const row = calls.get(key) ?? {
      kind: 'tool',
      key,
      name: `${d.step ? `[${d.step}] ` : ''}${d.name}`,
      tool: d.name,
      status: 'running',
      start: null,
      end: null,
      detail: clip(d.arguments ?? {}, 120),
    };
    if (event.type === 'tool.started') row.start = ms(event.at);
    else {
      row.end = ms(event.at);
      row.start ??= row.end === null ? null : row.end - (d.duration_ms ?? 0);
      row.took = d.duration_ms;
      row.status = d.is_error ? 'error' : 'ok';
      row.detail = clip(d.result ?? '', 160);
    }
    calls.set(key, row);
  }
  return [...calls.values()];
}

function stepsOf(record) {
  return (record?.graph?.steps ?? []).map((step) => ({
    kind: 'step',
    key: `step/${step.id}`,
    name: step.id,
    status: step.status,
    start: ms(step.started_at),
    end: ms(step.ended_at),
    detail: [
      step.kind,
      step.runs > 1 ? `${step.runs} attempts` : '',
      step.error ? step.error : step.output !== undefined ? clip(step.output, 120) : '',
    ]
      .filter(Boolean)
      .join(' · '),
  }));
}

function approvalsOf(events) {
  const rows = new Map();
  for (const event of events) {
    const d = event.data ?? {};
    if (event.type === 'approval.requested') {
      rows.set(d.node, {
        kind: 'approval',
        key: `approval/${d.node}`,
        name: d.node,
        status: 'waiting',
        start: ms(event.at),
        end: null,
        detail: 'waits for a decision',
      });
    } else if (event.type === 'approval.decided' && rows.has(d.node)) {
      const row = rows.get(d.node);
      row.status = d.decision;
      row.end = ms(event.at);
      row.detail = `${d.decision} by ${d.by ?? 'someone'}${d.comment ? `: ${d.comment}` : ''}`;
    }
  }
  return [...rows.values()];
}

/** Every row of the run's timeline, in the order things started (the run itself first). */
export function buildTimeline(record, events) {
  const rows = [
    ...(record?.graph ? stepsOf(record) : turnsOf(record, events)),
    ...toolsOf(events),
    ...approvalsOf(events),
  ].sort((a, b) => (a.start ?? Infinity) - (b.start ?? Infinity));
  if (!record) return rows;
  const summary = `turns ${record.turns} · tool calls ${record.tool_calls}`;
  return [
    {
      kind: 'run',
      key: 'run',
      name: record.agent,
      status: record.status,
      start: ms(record.started_at),
      end: ms(record.ended_at),
      detail: record.finish_reason ? `${summary} · ${record.finish_reason}` : summary,
    },
    ...rows,
  ];
}

const STATUS_CLASS = { ok: 'completed', error: 'failed', waiting: 'paused', approved: 'completed' };

/** Renders `rows` into the timeline's table body. */
export function renderTimeline(body, rows) {
  if (rows.length === 0) {
    body.replaceChildren(emptyRow(6, 'Nothing yet.'));
    return;
  }
  const starts = rows.map((row) => row.start).filter((value) => value !== null);
  const ends = rows.map((row) => row.end ?? Date.now());
  const from = Math.min(...starts);
  const to = Math.max(...ends, ...starts);
  body.replaceChildren(
    ...rows.map((row) => {
      const tr = el('tr');
      tr.dataset.kind = row.kind;
      tr.dataset.key = row.key;
      tr.dataset.status = row.status;
      if (row.tool) tr.dataset.tool = row.tool;
      const took =
        row.took ?? (row.start !== null && row.end !== null ? row.end - row.start : undefined);
      const status = STATUS_CLASS[row.status] ?? row.status;
      const when = el('td', undefined, 'when');
      when.append(
        el('span', row.start === null ? '–' : clock(new Date(row.start))),
        timeBar(row.start, row.end, from, to, status),
      );
      const detail = el('td', row.detail, 'text');
      detail.title = row.detail;
      tr.append(
        el('td', row.kind, `kind kind-${row.kind}`),
        el('td', row.name, 'id'),
        el('td', row.status, `status status-${status}`),
        el('td', took === undefined ? '–' : duration(took), 'num'),
        when,
        detail,
      );
      return tr;
    }),
  );
}
