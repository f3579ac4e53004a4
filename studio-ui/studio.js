// The studio page: reads /v1/studio (and /v1/board) with the key the user enters, every two
// seconds, and sends approve/deny for paused runs; a run opened from the loops (or by id) is
// shown live by run-view.js. Data only ever reaches the page as text (textContent), never as
// markup; the page's Content-Security-Policy allows no inline script.

import { createRunView } from './run-view.js';

const REFRESH_MS = 2000;
const LIMIT = 50;
const STORAGE = { key: 'svc-studio.key', tenant: 'svc-studio.tenant' };
const STATUSES = new Set([
  'queued',
  'running',
  'paused',
  'completed',
  'failed',
  'denied',
  'cancelled',
]);

const $ = (id) => document.getElementById(id);
const form = $('connect');
const keyInput = $('key');
const tenantInput = $('tenant');
const statusLine = $('status');
const messageLine = $('message');

/** What the user chose; kept for the browser tab's life (sessionStorage), never sent elsewhere. */
const settings = { key: '', tenant: '' };
let timer;
/** Bumped on every new choice, so an answer to an old choice is never shown. */
let generation = 0;
/** What each part shows now, to leave the DOM alone (and buttons clickable) when nothing changed. */
const shown = { counts: '', loops: '', sessions: '', board: '' };
/** Runs with a decision on the way: their buttons stay disabled across refreshes. */
const deciding = new Set();
/** The loops last shown, to redraw their buttons when a decision starts. */
let lastLoops = [];

function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (className) node.className = className;
  return node;
}

function row(cells) {
  const tr = document.createElement('tr');
  for (const cell of cells) tr.append(cell instanceof Node ? cell : el('td', cell));
  return tr;
}

function num(value) {
  return el('td', value, 'num');
}

function clipped(value, max = 80) {
  const text = String(value ?? '');
  const td = el('td', text.length > max ? `${text.slice(0, max - 1)}…` : text, 'text');
  td.title = text;
  return td;
}

function time(iso) {
  if (!iso) return '–';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleTimeString();
}

function took(loop) {
  if (!loop.ended_at) return '–';
  const ms = Date.parse(loop.ended_at) - Date.parse(loop.started_at);
  return Number.isFinite(ms) ? `${(ms / 1000).toFixed(1)} s` : '–';
}

function showMessage(text, kind = 'info') {
  messageLine.hidden = !text;
  messageLine.textContent = text;
  messageLine.className = kind;
}

const runView = createRunView({
  auth: () => (settings.key ? { Authorization: `Bearer ${settings.key}` } : {}),
  say: showMessage,
});

/** A problem+json body (or anything else) as one line. */
function problemText(status, body) {
  const detail = body && typeof body === 'object' ? body.detail || body.title : undefined;
  return `${status}${detail ? `: ${detail}` : ''}`;
}

async function api(method, path, body) {
  const headers = { Accept: 'application/json' };
  if (settings.key) headers.Authorization = `Bearer ${settings.key}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    cache: 'no-store',
    credentials: 'omit',
  });
  let data = null;
  try {
    data = await response.json();
  } catch {
    // not JSON: reported by status below
  }
  return { ok: response.ok, status: response.status, body: data };
}

function replace(target, name, data, build) {
  const fingerprint = JSON.stringify(data);
  if (shown[name] === fingerprint) return;
  shown[name] = fingerprint;
  target.replaceChildren(...build(data));
}

function renderCounts(counts) {
  replace($('counts'), 'counts', counts, (data) =>
    Object.entries(data).flatMap(([name, value]) => {
      const item = el('div', undefined, 'count');
      item.dataset.count = name;
      item.append(el('dt', name.replace(/_/g, ' ')), el('dd', value));
      return [item];
    }),
  );
}

function decisionCell(loop) {
  const td = el('td', undefined, 'decision');
  if (loop.status !== 'paused' || !loop.pending_node) return td;
  td.append(el('span', `${loop.pending_node} `, 'node'));
  for (const [action, label] of [
    ['approve', 'Approve'],
    ['deny', 'Deny'],
  ]) {
    const button = el('button', label, action);
    button.type = 'button';
    button.dataset.action = action;
    button.disabled = deciding.has(loop.run_id);
    button.addEventListener('click', () => void decide(loop, action));
    td.append(button);
  }
  return td;
}

/** The run id, as the button that opens the run's live view. */
function runCell(loop) {
  const td = el('td', undefined, 'id');
  const button = el('button', loop.run_id, 'link');
  button.type = 'button';
  button.dataset.action = 'open';
  button.title = 'Show this run live, with its events';
  button.addEventListener('click', () => runView.open(loop.run_id, loop.tenant_id));
  td.append(button);
  return td;
}

function renderLoops(loops) {
  lastLoops = loops;
  // The decision buttons depend on what is in flight too.
  const key = { loops, deciding: [...deciding] };
  replace($('loops-body'), 'loops', key, () => {
    if (loops.length === 0) return [row([emptyCell(10, 'No loops recorded yet.')])];
    return loops.map((loop) => {
      const status = STATUSES.has(loop.status) ? loop.status : 'unknown';
      const tr = row([
        el('td', loop.status, `status status-${status}`),
        runCell(loop),
        el('td', loop.tenant_id),
        el('td', loop.agent),
        num(loop.turns),
        num(loop.tool_calls),
        el('td', loop.finish_reason ?? '–'),
        el('td', time(loop.started_at)),
        el('td', took(loop)),
        decisionCell(loop),
      ]);
      tr.dataset.runId = loop.run_id;
      tr.dataset.status = status;
      if (loop.error) tr.title = loop.error;
      return tr;
    });
  });
}

function renderSessions(sessions) {
  replace($('sessions-body'), 'sessions', sessions, () => {
    if (sessions.length === 0) return [row([emptyCell(8, 'No sessions recorded yet.')])];
    return sessions.map((session) => {
      const tr = row([
        el('td', session.id, 'id'),
        el('td', session.tenant_id),
        el('td', session.agent),
        clipped(session.prompt),
        clipped(session.text),
        el('td', session.finish_reason),
        num(session.turns),
        num(session.tool_calls),
      ]);
      tr.dataset.sessionId = session.id;
      return tr;
    });
  });
}

function emptyCell(span, text) {
  const td = el('td', text, 'empty');
  td.colSpan = span;
  return td;
}

function renderBoard(board, note) {
  $('board-note').textContent = note;
  replace($('board'), 'board', board, () =>
    (board?.columns ?? []).map((column) => {
      const box = el('div', undefined, 'column');
      box.dataset.column = column.name;
      box.append(el('h3', `${column.name} (${column.cards.length})`));
      const list = el('ul');
      for (const card of column.cards) {
        const item = el('li', card.title, 'card');
        if (card.assignee) item.append(el('span', card.assignee, 'assignee'));
        list.append(item);
      }
      box.append(list);
      return box;
    }),
  );
}

async function loadBoard() {
  if (!settings.tenant) return renderBoard(null, 'Choose a tenant to see its board.');
  const answer = await api('GET', `/v1/board?tenant_id=${encodeURIComponent(settings.tenant)}`);
  if (answer.ok) return renderBoard(answer.body, '');
  renderBoard(null, `The board cannot be shown (${problemText(answer.status, answer.body)}).`);
}

async function refresh(round) {
  const query = new URLSearchParams({ limit: String(LIMIT) });
  if (settings.tenant) query.set('tenant_id', settings.tenant);
  let stop = false;
  try {
    const answer = await api('GET', `/v1/studio?${query}`);
    if (round !== generation) return;
    if (!answer.ok) {
      // A refused key or tenant does not get better by asking again.
      stop = answer.status === 401 || answer.status === 403;
      statusLine.textContent = `The gateway refused: ${problemText(answer.status, answer.body)}`;
      statusLine.className = 'error';
      return;
    }
    renderCounts(answer.body.counts);
    renderLoops(answer.body.loops);
    renderSessions(answer.body.sessions);
    await loadBoard();
    if (round !== generation) return;
    const who = settings.tenant ? `tenant ${settings.tenant}` : 'every tenant the key sees';
    statusLine.textContent = `Showing ${who} · updated ${new Date().toLocaleTimeString()}`;
    statusLine.className = 'ok';
  } catch {
    if (round !== generation) return;
    statusLine.textContent = 'The gateway does not answer; trying again.';
    statusLine.className = 'error';
  } finally {
    if (round === generation && !stop) timer = setTimeout(() => void refresh(round), REFRESH_MS);
  }
}

function start() {
  clearTimeout(timer);
  generation += 1;
  for (const name of Object.keys(shown)) shown[name] = '';
  statusLine.textContent = 'Loading…';
  statusLine.className = '';
  void refresh(generation);
}

async function decide(loop, action) {
  deciding.add(loop.run_id);
  renderLoops(lastLoops);
  showMessage(
    `${action === 'approve' ? 'Approving' : 'Denying'} ${loop.pending_node} of run ${loop.run_id}…`,
  );
  try {
    const answer = await api('POST', `/v1/runs/${encodeURIComponent(loop.run_id)}/${action}`, {
      tenant_id: loop.tenant_id,
      node_id: loop.pending_node,
    });
    if (answer.ok) {
      const verb = action === 'approve' ? 'approved' : 'denied';
      showMessage(
        `Run ${loop.run_id}: ${loop.pending_node} ${verb}; the run is ${answer.body.status}.`,
        'ok',
      );
    } else {
      showMessage(
        `Could not ${action} run ${loop.run_id}: ${problemText(answer.status, answer.body)}`,
        'error',
      );
    }
  } catch {
    showMessage(`Could not ${action} run ${loop.run_id}: the gateway does not answer.`, 'error');
  } finally {
    deciding.delete(loop.run_id);
    start();
  }
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  settings.key = keyInput.value.trim();
  settings.tenant = tenantInput.value.trim();
  sessionStorage.setItem(STORAGE.key, settings.key);
  sessionStorage.setItem(STORAGE.tenant, settings.tenant);
  showMessage('');
  runView.close();
  start();
});

$('open-run').addEventListener('submit', (event) => {
  event.preventDefault();
  const runId = $('run-input').value.trim();
  if (!runId) return;
  if (!settings.tenant) {
    showMessage('Choose a tenant (then Show) to open a run by its id.', 'error');
    return;
  }
  showMessage('');
  runView.open(runId, settings.tenant);
});

$('forget').addEventListener('click', () => {
  runView.close();
  sessionStorage.removeItem(STORAGE.key);
  keyInput.value = '';
  settings.key = '';
  clearTimeout(timer);
  generation += 1;
  statusLine.textContent = 'Key forgotten. Enter a key, then Show.';
  statusLine.className = '';
});

keyInput.value = sessionStorage.getItem(STORAGE.key) ?? '';
tenantInput.value = sessionStorage.getItem(STORAGE.tenant) ?? '';
if (keyInput.value || tenantInput.value) form.requestSubmit();
