// The dashboard (#/): counts, loops and sessions from GET /v1/studio and the tenant's board from
// GET /v1/board, every two seconds while it is shown, each only when the key may read it (the
// others are one line saying so, and never asked for). Paused loops have Approve and Deny for a
// key with approve:*; a loop's run id links to its run page.

import { problemText, query } from './api.js';
import { $, clock, duration, el, emptyRow, note } from './dom.js';

const REFRESH_MS = 2000;
const LIMIT = 50;
const STATUSES = new Set([
  'queued',
  'running',
  'paused',
  'completed',
  'failed',
  'denied',
  'cancelled',
]);

function row(cells) {
  const tr = document.createElement('tr');
  for (const cell of cells) tr.append(cell instanceof Node ? cell : el('td', cell));
  return tr;
}

const num = (value) => el('td', value, 'num');

function clipped(value, max = 80) {
  const text = String(value ?? '');
  const td = el('td', text.length > max ? `${text.slice(0, max - 1)}…` : text, 'text');
  td.title = text;
  return td;
}

function took(loop) {
  if (!loop.ended_at) return '–';
  return duration(Date.parse(loop.ended_at) - Date.parse(loop.started_at));
}

/** Where a run's page is. */
export function runHash(runId, tenant) {
  return `#/runs/${encodeURIComponent(runId)}${query({ tenant })}`;
}

/**
 * `settings` holds the tenant chosen; `status(text, kind)` sets the status line; `say(text,
 * kind)` the message line.
 */
export function createDashboard({ api, access, settings, status, say }) {
  const section = $('dashboard');
  let timer;
  /** Bumped on every start and stop, so an answer to an old round is never shown. */
  let generation = 0;
  /** What each part shows now, to leave the DOM alone (and buttons clickable) when unchanged. */
  const shown = { counts: '', loops: '', sessions: '', board: '' };
  /** Runs with a decision on the way: their buttons stay disabled across refreshes. */
  const deciding = new Set();
  let lastLoops = [];

  function replace(target, name, data, build) {
    const fingerprint = JSON.stringify(data);
    if (shown[name] === fingerprint) return;
    shown[name] = fingerprint;
    target.replaceChildren(...build(data));
  }

  function renderCounts(counts) {
    replace($('counts'), 'counts', counts, (data) =>
      Object.entries(data).map(([name, value]) => {
        const item = el('div', undefined, 'count');
        item.dataset.count = name;
        item.append(el('dt', name.replace(/_/g, ' ')), el('dd', value));
        return item;
      }),
    );
  }

  function decisionCell(loop) {
    const td = el('td', undefined, 'decision');
    if (loop.status !== 'paused' || !loop.pending_node) return td;
    td.append(el('span', `${loop.pending_node} `, 'node'));
    if (!access.can('approve:*')) return td;
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

  /** The run id, as the link to its run page. */
  function runCell(loop) {
    const td = el('td', undefined, 'id');
    const link = el('a', loop.run_id);
    link.href = runHash(loop.run_id, loop.tenant_id);
    link.dataset.action = 'open';
    link.title = 'The run’s page: live events, timeline, graph, spans, audit';
    td.append(link);
    return td;
  }

  function renderLoops(loops) {
    lastLoops = loops;
    // The decision buttons depend on what is in flight too.
    const key = { loops, deciding: [...deciding] };
    replace($('loops-body'), 'loops', key, () => {
      if (loops.length === 0) return [emptyRow(10, 'No loops recorded yet.')];
      return loops.map((loop) => {
        const state = STATUSES.has(loop.status) ? loop.status : 'unknown';
        const tr = row([
          el('td', loop.status, `status status-${state}`),
          runCell(loop),
          el('td', loop.tenant_id),
          el('td', loop.agent),
          num(loop.turns),
          num(loop.tool_calls),
          el('td', loop.finish_reason ?? '–'),
          el('td', clock(loop.started_at)),
          el('td', took(loop)),
          decisionCell(loop),
        ]);
        tr.dataset.runId = loop.run_id;
        tr.dataset.status = state;
        if (loop.error) tr.title = loop.error;
        return tr;
      });
    });
    const paused = loops.some((loop) => loop.status === 'paused');
    note($('loops-note'), paused && !access.can('approve:*') ? access.cannot('approve:*') : '');
  }

  function renderSessions(sessions) {
    replace($('sessions-body'), 'sessions', sessions, () => {
      if (sessions.length === 0) return [emptyRow(8, 'No sessions recorded yet.')];
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

  function renderBoard(board, text) {
    $('board-note').textContent = text;
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

  /** Reads the board; answers false when asking again would not help (refused). */
  async function loadBoard() {
    if (!access.can('board:read')) {
      renderBoard(null, access.cannot('board:read'));
      return false;
    }
    if (!settings.tenant) {
      renderBoard(null, 'Choose a tenant to see its board.');
      return true;
    }
    const answer = await api.get(`/v1/board${query({ tenant_id: settings.tenant })}`);
    if (answer.ok) {
      renderBoard(answer.body, '');
      return true;
    }
    renderBoard(null, `The board cannot be shown (${problemText(answer.status, answer.body)}).`);
    return answer.status !== 401 && answer.status !== 403;
  }

  /** Reads the studio; answers false when asking again would not help (refused). */
  async function loadStudio(round) {
    const mayRead = access.can('studio:read');
    note($('studio-note'), mayRead ? '' : access.cannot('studio:read'));
    if (!mayRead) {
      renderCounts({});
      renderLoops([]);
      renderSessions([]);
      return false;
    }
    const answer = await api.get(
      `/v1/studio${query({ limit: LIMIT, tenant_id: settings.tenant })}`,
    );
    if (round !== generation) return false;
    if (!answer.ok) {
      status(`The gateway refused: ${problemText(answer.status, answer.body)}`, 'error');
      return answer.status !== 401 && answer.status !== 403;
    }
    renderCounts(answer.body.counts);
    renderLoops(answer.body.loops);
    renderSessions(answer.body.sessions);
    return true;
  }

  async function refresh(round) {
    let again = false;
    try {
      const studio = await loadStudio(round);
      if (round !== generation) return;
      const board = await loadBoard();
      if (round !== generation) return;
      // A part the key may not read is never asked for; a refusal is not asked again.
      again = studio || (board && Boolean(settings.tenant));
      const who = settings.tenant ? `tenant ${settings.tenant}` : 'every tenant the key sees';
      if (again) status(`Showing ${who} · updated ${new Date().toLocaleTimeString()}`, 'ok');
      else if (!access.can('studio:read')) status(`Showing what this key may read of ${who}.`, '');
    } catch {
      if (round !== generation) return;
      again = true;
      status('The gateway does not answer; trying again.', 'error');
    } finally {
      if (round === generation && again) {
        timer = setTimeout(() => void refresh(round), REFRESH_MS);
      }
    }
  }

  function start() {
    clearTimeout(timer);
    generation += 1;
    for (const name of Object.keys(shown)) shown[name] = '';
    void refresh(generation);
  }

  async function decide(loop, action) {
    deciding.add(loop.run_id);
    renderLoops(lastLoops);
    say(
      `${action === 'approve' ? 'Approving' : 'Denying'} ${loop.pending_node} of run ${loop.run_id}…`,
    );
    try {
      const answer = await api.call(
        'POST',
        `/v1/runs/${encodeURIComponent(loop.run_id)}/${action}`,
        {
          tenant_id: loop.tenant_id,
          node_id: loop.pending_node,
        },
      );
      if (answer.ok) {
        const verb = action === 'approve' ? 'approved' : 'denied';
        say(
          `Run ${loop.run_id}: ${loop.pending_node} ${verb}; the run is ${answer.body.status}.`,
          'ok',
        );
      } else {
        say(
          `Could not ${action} run ${loop.run_id}: ${problemText(answer.status, answer.body)}`,
          'error',
        );
      }
    } catch {
      say(`Could not ${action} run ${loop.run_id}: the gateway does not answer.`, 'error');
    } finally {
      deciding.delete(loop.run_id);
      if (!section.hidden) start();
    }
  }

  return {
    show() {
      section.hidden = false;
      status('Loading…', '');
      start();
    },
    hide() {
      clearTimeout(timer);
      generation += 1;
      section.hidden = true;
    },
  };
}
