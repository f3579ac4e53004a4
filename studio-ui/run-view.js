// The studio's live view of one run: its event history (GET /v1/runs/{id}/events as JSON pages),
// then its events as they happen (the same route as text/event-stream, read with fetch because
// EventSource cannot send the Authorization header; a cut stream resumes with Last-Event-ID).
// Text deltas are assembled into the answer; tool calls, steps and approvals get their rows;
// Approve, Deny and Cancel post to the run's routes, shown only to a key that may use them. A run
// the playground starts is read from the stream its POST answers. The view is made from the
// page's <template id="run-view-template">, so the run page and the playground each have one.
// Data reaches the page only as text.

import { problemText, readJson } from './api.js';
import { clip as clipTo, el, emptyRow } from './dom.js';

const PAGE = 500;
const RETRY_MAX_MS = 10_000;
const ACTIVE = new Set(['queued', 'running', 'paused']);
const KNOWN = new Set([
  'queued',
  'running',
  'paused',
  'completed',
  'failed',
  'denied',
  'cancelled',
]);

const clip = (value) => clipTo(value, 160);

/** One event in the history list, as a short line. */
function describe(event) {
  const d = event.data ?? {};
  const step = typeof d.step === 'string' ? `[${d.step}] ` : '';
  switch (event.type) {
    case 'run.started':
      return `started (agent ${d.run?.agent ?? '?'})`;
    case 'run.taken_over':
      return 'taken over by another replica';
    case 'run.resumed':
      return 'resumed after the decision';
    case 'tool.started':
      return `${step}tool ${d.name} ${clip(d.arguments ?? {})}`;
    case 'tool.finished':
      return d.is_error
        ? `${step}tool ${d.name} failed after ${d.duration_ms} ms: ${clip(d.result)}`
        : `${step}tool ${d.name} answered in ${d.duration_ms} ms`;
    case 'run.progressed':
      return `turns ${d.turns} · tool calls ${d.tool_calls}`;
    case 'step.started':
      return `step ${d.step} started (${d.kind ?? '?'}${d.attempt > 1 ? `, attempt ${d.attempt}` : ''})`;
    case 'step.finished':
      return `step ${d.step} ${d.status}${d.error ? `: ${clip(d.error)}` : ''}`;
    case 'approval.requested':
      return `${d.node} waits for approval`;
    case 'approval.decided':
      return `${d.node} ${d.decision} by ${d.by}${d.comment ? ` (${clip(d.comment)})` : ''}`;
    case 'run.cancel_requested':
      return `cancel requested by ${d.by}`;
    case 'run.paused':
      return `paused: ${d.run?.pending_node ?? '?'} waits for a decision`;
    case 'run.settled':
      return `settled: ${d.run?.status}${d.run?.error ? ` (${d.run.error.detail})` : ''}`;
    default:
      return '';
  }
}

/** The events of a `text/event-stream` body as they arrive (the HTML standard's format). */
async function* readEventStream(body, signal) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const stop = () => void reader.cancel().catch(() => undefined);
  signal.addEventListener('abort', stop, { once: true });
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, '\n');
      let end;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let type = 'message';
        const data = [];
        for (const line of block.split('\n')) {
          if (line === '' || line.startsWith(':')) continue;
          const colon = line.indexOf(':');
          const field = colon < 0 ? line : line.slice(0, colon);
          const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
          if (field === 'event') type = value;
          else if (field === 'data') data.push(value);
        }
        if (data.length > 0) yield { type, data: data.join('\n') };
      }
    }
  } finally {
    signal.removeEventListener('abort', stop);
  }
}

const sleep = (ms, signal) =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

/**
 * A view of one run inside `root`, made from the page's template; each part gets the id
 * `${prefix}-${part}` (`run-status`, `play-answer`). `api` is the page's API (api.js);
 * `access` what the key may do (access.js); `say(text, kind)` puts a line in the page's
 * message area; `onEvent(event)` hears every event shown (the run page builds its timeline from
 * them); `onClose()` is what the Close button does.
 */
export function createRunView({ root, prefix, api, access, say, onEvent, onClose }) {
  root.append(document.getElementById('run-view-template').content.cloneNode(true));
  const parts = {};
  for (const node of root.querySelectorAll('[data-part]')) {
    parts[node.dataset.part] = node;
    node.id = `${prefix}-${node.dataset.part}`;
  }
  /** What is shown: one run at a time. */
  let run = null;

  function runPath(suffix = '') {
    const id = encodeURIComponent(run.id);
    return `/v1/runs/${id}${suffix}?tenant_id=${encodeURIComponent(run.tenant)}`;
  }

  function live(text, kind = '') {
    parts.live.textContent = text;
    parts.live.className = `note ${kind}`;
  }

  function renderHead() {
    const status = KNOWN.has(run.status) ? run.status : 'unknown';
    parts.status.textContent = run.status ?? '–';
    parts.status.className = `status status-${status}`;
    root.dataset.status = status;
    parts.summary.textContent =
      run.turns === undefined ? '' : `turns ${run.turns} · tool calls ${run.toolCalls}`;
    const pending = run.status === 'paused' && run.pending ? run.pending : null;
    parts.pending.textContent = pending ? `${pending} waits for approval` : '';
    const mayDecide = access.can('approve:*');
    const mayCancel = access.can('runs:write');
    for (const button of [parts.approve, parts.deny]) {
      button.hidden = !pending || !mayDecide;
      button.disabled = run.busy;
    }
    parts.cancel.hidden = !ACTIVE.has(run.status) || !mayCancel;
    parts.cancel.disabled = run.busy || run.cancelling;
    // What this key could do here but may not, said once instead of offered and refused.
    const cannot = [
      pending && !mayDecide ? access.cannot('approve:*') : '',
      ACTIVE.has(run.status) && !mayCancel ? access.cannot('runs:write') : '',
    ].filter(Boolean);
    parts.may.textContent = cannot.length ? `On this run, ${cannot.join('; ')}.` : '';
    parts.may.hidden = cannot.length === 0;
  }

  function takeRun(record) {
    if (!record || typeof record !== 'object') return;
    run.status = record.status;
    run.agent = record.agent;
    run.turns = record.turns;
    run.toolCalls = record.tool_calls;
    run.pending = record.pending_node ?? null;
    run.text = typeof record.text === 'string' ? record.text : '';
  }

  /** A cell of the tool calls or steps table, found by key or made. */
  function rowFor(table, key, cells) {
    let tr = table.querySelector(`tr[data-key="${CSS.escape(key)}"]`);
    if (!tr) {
      tr = el('tr');
      tr.dataset.key = key;
      for (const name of cells) {
        const td = el('td');
        td.dataset.cell = name;
        tr.append(td);
      }
      table.querySelector('.empty')?.closest('tr')?.remove();
      table.append(tr);
    }
    const set = (name, text, className) => {
      const td = tr.querySelector(`td[data-cell="${name}"]`);
      td.textContent = text;
      if (className !== undefined) td.className = className;
    };
    return { tr, set };
  }

  function appendText(d) {
    const key = `${d.step ?? ''}/${d.turn}`;
    let part = parts.answer.lastElementChild;
    if (!part || part.dataset.key !== key) {
      part = el('span', undefined, 'turn');
      part.dataset.key = key;
      if (d.step !== undefined) part.append(el('span', `[${d.step}] `, 'step-name'));
      parts.answer.append(part);
    }
    part.append(document.createTextNode(d.text));
    run.streamed += d.text;
  }

  const TOOL_CELLS = ['name', 'step', 'turn', 'arguments', 'status', 'took'];

  function apply(event) {
    if (!run || typeof event?.id !== 'number' || event.id <= run.lastId) return;
    run.lastId = event.id;
    onEvent?.(event);
    const d = event.data ?? {};
    switch (event.type) {
      case 'model.delta':
        // Tool-call chunks are shown when the call starts.
        if (typeof d.text === 'string') appendText(d);
        return;
      case 'run.started':
      case 'run.taken_over':
      case 'run.resumed':
      case 'run.paused':
      case 'run.settled':
        takeRun(d.run);
        break;
      case 'run.progressed':
        run.turns = d.turns;
        run.toolCalls = d.tool_calls;
        break;
      case 'tool.started': {
        const { tr, set } = rowFor(parts.tools, `${d.step ?? ''}/${d.call_id}`, TOOL_CELLS);
        set('name', d.name);
        set('step', d.step ?? '–');
        set('turn', d.turn, 'num');
        set('arguments', clip(d.arguments ?? {}), 'text');
        set('status', 'running', 'status status-running');
        set('took', '–', 'num');
        tr.dataset.state = 'running';
        break;
      }
      case 'tool.finished': {
        const { tr, set } = rowFor(parts.tools, `${d.step ?? ''}/${d.call_id}`, TOOL_CELLS);
        set('name', d.name);
        set('step', d.step ?? '–');
        set('turn', d.turn, 'num');
        set(
          'status',
          d.is_error ? 'error' : 'ok',
          `status status-${d.is_error ? 'failed' : 'completed'}`,
        );
        set('took', `${d.duration_ms} ms`, 'num');
        tr.dataset.state = d.is_error ? 'error' : 'ok';
        tr.title = clip(d.result);
        break;
      }
      case 'step.started':
      case 'step.finished': {
        const { tr, set } = rowFor(parts.steps, d.step, ['step', 'kind', 'attempt', 'status']);
        set('step', d.step, 'id');
        if (event.type === 'step.started') {
          set('kind', d.kind ?? '–');
          set('attempt', d.attempt ?? 1, 'num');
          set('status', 'running', 'status status-running');
          tr.dataset.state = 'running';
        } else {
          const ok = d.status === 'completed';
          set('status', d.status, `status status-${ok ? 'completed' : 'failed'}`);
          tr.dataset.state = d.status;
          if (d.error) tr.title = clip(d.error);
        }
        break;
      }
      case 'approval.requested':
        run.pending = d.node;
        break;
      case 'approval.decided':
        run.pending = null;
        break;
      case 'run.cancel_requested':
        run.cancelling = true;
        break;
    }
    const item = el('li');
    item.dataset.eventId = String(event.id);
    item.dataset.type = event.type;
    const at = new Date(event.at);
    item.append(
      el('time', Number.isNaN(at.getTime()) ? event.at : at.toLocaleTimeString()),
      el('span', event.type, 'type'),
      el('span', describe(event), 'what'),
    );
    parts.events.append(item);
    if (event.type === 'run.settled') settle();
    renderHead();
  }

  /** The final answer: what streamed, or the run's text when nothing did (or it differs). */
  function settle() {
    run.settled = true;
    run.cancelling = false;
    const text = run.text ?? '';
    if (text && !run.streamed.endsWith(text)) {
      parts.answer.append(el('span', text, 'turn final'));
    }
  }

  /** Pages of the log after what is shown, until the end of what exists. */
  async function readHistory(current) {
    for (;;) {
      const query = `&after=${current.lastId}&limit=${PAGE}`;
      const response = await api.request('GET', `${runPath('/events')}${query}`, {
        signal: current.stop.signal,
      });
      const body = await readJson(response);
      if (current !== run) return false;
      if (!response.ok) {
        live(`The gateway refused: ${problemText(response.status, body)}`, 'error');
        return false;
      }
      for (const event of body.events ?? []) apply(event);
      if (body.done || run.settled) return false;
      if ((body.events ?? []).length < PAGE) return true;
    }
  }

  /**
   * Applies the events of an event-stream response while `current` is shown; answers why it
   * stopped reading, or null when the run settled.
   */
  async function readStream(current, response) {
    let reason = 'the stream ended';
    live('Live: events appear as they happen.', 'ok');
    for await (const sse of readEventStream(response.body, current.stop.signal)) {
      if (current !== run) return null;
      if (sse.type === 'error') {
        reason = 'the stream failed';
        break;
      }
      let event;
      try {
        event = JSON.parse(sse.data);
      } catch {
        continue;
      }
      const before = run.lastId;
      apply(event);
      if (run.lastId > before) current.attempt = 0;
      if (run.settled) return null;
    }
    return reason;
  }

  /** The live stream from the last event shown, resumed while the run is open. */
  async function follow(current) {
    current.attempt = 0;
    while (current === run && !run.settled) {
      let reason = 'the stream ended';
      try {
        const response = await api.request('GET', runPath('/events'), {
          accept: 'text/event-stream',
          headers: current.lastId > 0 ? { 'Last-Event-ID': String(current.lastId) } : {},
          signal: current.stop.signal,
        });
        const type = response.headers.get('content-type') ?? '';
        if (!type.startsWith('text/event-stream')) {
          const body = await readJson(response);
          // A refusal does not get better by asking again; an unavailable gateway may.
          if (response.status < 500) {
            live(`The gateway refused: ${problemText(response.status, body)}`, 'error');
            return;
          }
          reason = problemText(response.status, body);
        } else {
          reason = (await readStream(current, response)) ?? reason;
        }
      } catch {
        if (current !== run) return;
        reason = 'the connection was cut';
      }
      if (current !== run || run.settled) break;
      if (await settledWithoutEvent(current)) break;
      current.attempt += 1;
      const wait = Math.min(1000 * 2 ** (current.attempt - 1), RETRY_MAX_MS);
      live(
        `${reason}; reconnecting after event ${run.lastId} (attempt ${current.attempt})…`,
        'error',
      );
      await sleep(wait, current.stop.signal);
    }
    if (current === run && run.settled) live(`Settled: ${run.status}. The whole history is shown.`);
  }

  /**
   * A stream that ends without the run's last event: a run whose log lost it (pruned) has
   * settled all the same, which its record says.
   */
  async function settledWithoutEvent(current) {
    try {
      const response = await api.request('GET', runPath(), { signal: current.stop.signal });
      const body = await readJson(response);
      if (current !== run || !response.ok || ACTIVE.has(body?.status)) return false;
      takeRun(body);
      settle();
      renderHead();
      return true;
    } catch {
      return false;
    }
  }

  /** The history (or the stream a POST answered, from the run's first event), then live. */
  async function show(current, stream) {
    try {
      if (stream) {
        try {
          await readStream(current, stream);
        } catch {
          // Cut: the log has the rest, from the last event shown.
        }
        if (current === run && !run.settled) await follow(current);
        else if (current === run) live(`Settled: ${run.status}. The whole history is shown.`);
        return;
      }
      live('Loading the history…');
      if (await readHistory(current)) await follow(current);
      else if (current === run && run.settled) {
        live(`Settled: ${run.status}. The whole history is shown.`);
      }
    } catch {
      if (current === run) live('The gateway does not answer.', 'error');
    }
  }

  async function decide(action) {
    const current = run;
    const node = run.pending;
    run.busy = true;
    renderHead();
    say(`${action === 'approve' ? 'Approving' : 'Denying'} ${node} of run ${run.id}…`);
    try {
      const answer = await api.call('POST', `/v1/runs/${encodeURIComponent(run.id)}/${action}`, {
        tenant_id: run.tenant,
        node_id: node,
      });
      if (answer.ok) {
        const verb = action === 'approve' ? 'approved' : 'denied';
        say(`Run ${current.id}: ${node} ${verb}; the run is ${answer.body?.status}.`, 'ok');
      } else {
        say(
          `Could not ${action} run ${current.id}: ${problemText(answer.status, answer.body)}`,
          'error',
        );
      }
    } catch {
      say(`Could not ${action} run ${current.id}: the gateway does not answer.`, 'error');
    } finally {
      current.busy = false;
      if (current === run) renderHead();
    }
  }

  async function cancel() {
    const current = run;
    run.busy = true;
    renderHead();
    say(`Cancelling run ${run.id}…`);
    try {
      const answer = await api.call('POST', `/v1/runs/${encodeURIComponent(run.id)}/cancel`, {
        tenant_id: run.tenant,
      });
      const problem = problemText(answer.status, answer.body);
      if (answer.status === 200) say(`Run ${current.id} is cancelled.`, 'ok');
      else if (answer.status === 202) {
        current.cancelling = true;
        say(`Run ${current.id} is being cancelled.`, 'ok');
      } else if (answer.status === 409) {
        say(`Run ${current.id} already ended: ${problem}`, 'error');
      } else {
        say(`Could not cancel run ${current.id}: ${problem}`, 'error');
      }
    } catch {
      say(`Could not cancel run ${current.id}: the gateway does not answer.`, 'error');
    } finally {
      current.busy = false;
      if (current === run) renderHead();
    }
  }

  function close() {
    run?.stop.abort();
    run = null;
  }

  /**
   * Shows run `id` of tenant `tenant`: its history, then its events live until it settles.
   * With `stream` (the event-stream response of the POST that started it) the events are read
   * from there first.
   */
  function open(id, tenant, { stream } = {}) {
    close();
    run = {
      id,
      tenant,
      stop: new AbortController(),
      lastId: 0,
      attempt: 0,
      status: undefined,
      pending: null,
      streamed: '',
      settled: false,
      busy: false,
      cancelling: false,
    };
    root.dataset.runId = id;
    parts.id.textContent = id;
    parts.answer.replaceChildren();
    parts.events.replaceChildren();
    parts.tools.replaceChildren(emptyRow(6, 'No tool calls yet.'));
    parts.steps.replaceChildren(emptyRow(4, 'No steps (a plain run, or none started yet).'));
    renderHead();
    void show(run, stream);
  }

  parts.approve.addEventListener('click', () => void decide('approve'));
  parts.deny.addEventListener('click', () => void decide('deny'));
  parts.cancel.addEventListener('click', () => void cancel());
  parts.close.addEventListener('click', () => {
    close();
    onClose?.();
  });
  return { open, close };
}
