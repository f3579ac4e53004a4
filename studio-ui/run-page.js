// The run page (#/runs/{id}?tenant=…): the live view of the run (run-view.js), its facts
// (GET /v1/runs/{id}), the picture of its graph with each step's status, a timeline of turns,
// tool calls, steps and approvals, the spans this replica kept (GET /v1/runs/{id}/spans) and the
// run's audit events (GET /v1/audit?run_id=, only for a key with audit:read). Nothing is polled:
// the record is read again when an event says it changed, spans and audit when the run pauses
// or settles.

import { problemText, query } from './api.js';
import { $, clip, clock, duration, el, emptyRow, note } from './dom.js';
import { drawGraph, graphOf } from './graph-view.js';
import { createRunView } from './run-view.js';
import { renderSpans } from './spans-table.js';
import { buildTimeline, renderTimeline } from './timeline.js';

/** Events after which the record says something new (steps, turns, status). */
const CHANGES = new Set([
  'run.started',
  'run.taken_over',
  'run.resumed',
  'run.progressed',
  'step.started',
  'step.finished',
  'approval.decided',
  'run.paused',
  'run.settled',
]);
/** Events after which new spans and audit events exist: an execution ended here. */
const ENDS = new Set(['run.paused', 'run.settled']);
/** The events kept for the timeline (deltas are not: the answer has them). */
const MAX_EVENTS = 5000;
const AUDIT_PAGE = 100;
/** At most two record reads a second while events flow: the tenant's rate budget is shared. */
const RELOAD_MS = 500;

export function createRunPage({ api, access, say, go }) {
  const section = $('run-page');
  /** The run shown: `{id, tenant, record, events, timer}`. */
  let shown = null;

  const view = createRunView({
    root: $('run'),
    prefix: 'run',
    api,
    access,
    say,
    onEvent: (event) => heard(event),
    onClose: () => go('#/'),
  });

  // The run's facts belong in its header, under the view's title line.
  $('run').querySelector('.run-head').after($('run-facts'));

  const runPath = (suffix = '') =>
    `/v1/runs/${encodeURIComponent(shown.id)}${suffix}${query({ tenant_id: shown.tenant })}`;

  function heard(event) {
    const current = shown;
    if (!current || event.type === 'model.delta') return;
    if (current.events.length < MAX_EVENTS) current.events.push(event);
    redraw(current);
    if (CHANGES.has(event.type)) schedule(current, ENDS.has(event.type));
  }

  /** Draws once for a burst of events (a page of history is hundreds). */
  function redraw(current) {
    if (current.drawing) return;
    current.drawing = true;
    requestAnimationFrame(() => {
      current.drawing = false;
      render(current);
    });
  }

  /** Reads the record again soon (events come in bursts); with `ended`, spans and audit too. */
  function schedule(current, ended) {
    current.ended ||= ended;
    if (current.timer) return;
    current.timer = setTimeout(() => {
      current.timer = null;
      const withEnded = current.ended;
      current.ended = false;
      void loadRecord(current).then(() => {
        if (withEnded) void Promise.all([loadSpans(current), loadAudit(current)]);
      });
    }, RELOAD_MS);
  }

  async function loadRecord(current) {
    try {
      const answer = await api.get(runPath());
      if (current !== shown) return;
      if (!answer.ok) {
        $('run-facts').hidden = true;
        const problem = problemText(answer.status, answer.body);
        $('run-timeline').replaceChildren(emptyRow(6, `The run cannot be shown (${problem}).`));
        return;
      }
      current.record = answer.body;
      render(current);
    } catch {
      // The live view says when the gateway does not answer.
    }
  }

  function fact(name, value) {
    const item = el('div', undefined, 'fact');
    item.dataset.fact = name.toLowerCase();
    item.append(el('dt', name), el('dd', value ?? '–'));
    return item;
  }

  function usageText(usage) {
    if (!usage) return '–';
    const models = Object.entries(usage.by_model ?? {}).map(
      ([model, use]) => `${model}: ${use.prompt_tokens} in, ${use.completion_tokens} out`,
    );
    const total = `${usage.total_tokens} tokens (${usage.prompt_tokens} in, ${usage.completion_tokens} out)`;
    return models.length > 1 ? `${total} · ${models.join(' · ')}` : total;
  }

  function renderFacts(record) {
    const took =
      record.ended_at && record.started_at
        ? duration(Date.parse(record.ended_at) - Date.parse(record.started_at))
        : '–';
    $('run-facts').replaceChildren(
      fact('Status', record.status),
      fact('Agent', record.agent),
      fact('Session', record.session_id),
      fact('Tenant', record.tenant_id),
      fact('Started', clock(record.started_at)),
      fact('Ended', clock(record.ended_at)),
      fact('Took', took),
      fact('Usage', usageText(record.usage)),
      fact('Trace', record.trace_id ?? 'not traced'),
    );
    $('run-facts').hidden = false;
  }

  function renderGraph(record) {
    const graph = record.graph;
    $('run-graph-box').hidden = !graph;
    if (!graph) return;
    const statuses = new Map((graph.steps ?? []).map((step) => [step.id, step.status]));
    const waiting = record.status === 'paused' ? (record.pending_node ?? null) : null;
    drawGraph($('run-graph'), graphOf(graph.topology, graph.definition ?? []), {
      name: 'run',
      run: { statuses, waiting },
    });
  }

  function render(current) {
    if (current !== shown) return;
    if (current.record) {
      renderFacts(current.record);
      renderGraph(current.record);
    }
    renderTimeline($('run-timeline'), buildTimeline(current.record, current.events));
  }

  async function loadSpans(current) {
    const body = $('run-spans');
    const say = (text) => note($('run-spans-note'), text);
    if (!access.can('runs:read')) {
      say(access.cannot('runs:read'));
      body.replaceChildren();
      return;
    }
    try {
      const answer = await api.get(runPath('/spans'));
      if (current !== shown) return;
      if (!answer.ok) {
        say(`The spans cannot be shown (${problemText(answer.status, answer.body)}).`);
        return;
      }
      const { kept, destination, spans, trace_id: traceId } = answer.body;
      if (!kept) {
        say(
          destination === 'off'
            ? 'Tracing is off on this gateway: runs have no spans.'
            : `Spans go to the OpenTelemetry collector; look for trace ${traceId ?? '?'} there.`,
        );
        body.replaceChildren();
        return;
      }
      say(
        spans.length === 0
          ? 'This replica keeps none of this run’s spans (it ran elsewhere, or they made room).'
          : `${spans.length} spans kept in this replica’s memory.`,
      );
      renderSpans(body, spans);
    } catch {
      if (current === shown) say('The spans cannot be shown: the gateway does not answer.');
    }
  }

  async function loadAudit(current) {
    const body = $('run-audit');
    const say = (text) => note($('run-audit-note'), text);
    if (!access.can('audit:read')) {
      say(access.cannot('audit:read'));
      body.replaceChildren();
      return;
    }
    try {
      const params = { tenant_id: current.tenant, run_id: current.id, limit: AUDIT_PAGE };
      const answer = await api.get(`/v1/audit${query(params)}`);
      if (current !== shown) return;
      if (!answer.ok) {
        say(`The audit events cannot be shown (${problemText(answer.status, answer.body)}).`);
        return;
      }
      const events = [...(answer.body.events ?? [])].reverse();
      say(
        answer.body.next_cursor
          ? `The last ${events.length} audit events of this run (GET /v1/audit has the rest).`
          : '',
      );
      if (events.length === 0) {
        body.replaceChildren(emptyRow(4, 'No audit events for this run yet.'));
        return;
      }
      body.replaceChildren(
        ...events.map((event) => {
          const tr = el('tr');
          tr.dataset.kind = event.kind;
          const details = el('td', clip(event.details, 200), 'text');
          details.title = JSON.stringify(event.details);
          tr.append(
            el('td', clock(new Date(event.at))),
            el('td', event.kind, 'id'),
            el('td', event.actor ?? '–'),
            details,
          );
          return tr;
        }),
      );
    } catch {
      if (current === shown) say('The audit events cannot be shown: the gateway does not answer.');
    }
  }

  function clear() {
    $('run-facts').replaceChildren();
    $('run-graph-box').hidden = true;
    $('run-timeline').replaceChildren(emptyRow(6, 'Loading…'));
    $('run-spans').replaceChildren();
    $('run-audit').replaceChildren();
    note($('run-spans-note'), '');
    note($('run-audit-note'), '');
  }

  function hide() {
    if (shown?.timer) clearTimeout(shown.timer);
    shown = null;
    view.close();
    section.hidden = true;
  }

  return {
    /** Shows run `id` of `tenant`; the same run again leaves what is shown alone. */
    show({ id, tenant }) {
      section.hidden = false;
      if (shown && shown.id === id && shown.tenant === tenant) return;
      hide();
      section.hidden = false;
      if (!access.can('runs:read')) {
        clear();
        $('run').hidden = true;
        note($('run-spans-note'), access.cannot('runs:read'));
        return;
      }
      $('run').hidden = false;
      shown = { id, tenant, record: null, events: [], timer: null, ended: false, drawing: false };
      clear();
      view.open(id, tenant);
      void loadRecord(shown);
      void loadSpans(shown);
      void loadAudit(shown);
    },
    hide,
  };
}
