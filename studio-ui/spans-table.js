// A run's spans (GET /v1/runs/{id}/spans) as a table: a tree, each span under its parent by start
// time and indented by depth, with its kind, status, duration and a bar placing it in the run.

import { clip, clock, duration, el, timeBar } from './dom.js';

/** A span's status as the page colours it: unset is neither good nor bad. */
const STATUS = { ok: 'completed', error: 'failed', unset: 'pending' };

/** The spans in tree order, each with its depth; a span whose parent is not here is a root. */
function spanTree(spans) {
  const ids = new Set(spans.map((span) => span.span_id));
  const children = new Map();
  for (const span of spans) {
    const parent = ids.has(span.parent_span_id) ? span.parent_span_id : null;
    children.set(parent, [...(children.get(parent) ?? []), span]);
  }
  const ordered = [];
  const walk = (parent, depth) => {
    for (const span of children.get(parent) ?? []) {
      ordered.push({ span, depth });
      walk(span.span_id, depth + 1);
    }
  };
  walk(null, 0);
  return ordered;
}

/** Renders `spans` (oldest first, as the gateway answers them) into a table body. */
export function renderSpans(body, spans) {
  const from = Math.min(...spans.map((span) => Date.parse(span.started_at)));
  const to = Math.max(...spans.map((span) => Date.parse(span.ended_at)));
  body.replaceChildren(
    ...spanTree(spans).map(({ span, depth }) => {
      const status = STATUS[span.status] ?? 'pending';
      const start = Date.parse(span.started_at);
      const tr = el('tr');
      tr.dataset.span = span.name;
      tr.dataset.status = span.status;
      tr.title = clip(span.attributes, 400);
      const when = el('td', undefined, 'when');
      when.append(
        el('span', clock(span.started_at)),
        timeBar(start, start + span.duration_ms, from, to, status),
      );
      tr.append(
        el('td', span.name, `id depth-${Math.min(depth, 8)}`),
        el('td', span.kind),
        el('td', span.status, `status status-${status}`),
        el('td', duration(span.duration_ms), 'num'),
        when,
      );
      return tr;
    }),
  );
}
