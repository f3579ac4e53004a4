// The studio page: asks for an API key and a tenant, asks the gateway once what the key may do
// (GET /v1/whoami), then shows one view by the address's fragment: the dashboard (#/), a run's
// page (#/runs/{id}?tenant=…), the agents (#/agents[/{name}]) and the playground
// (#/playground). Views ask only for what the key may read and say what it may not. Data only
// ever reaches the page as text; the page's Content-Security-Policy allows no inline script.

import { createAccess } from './access.js';
import { createAgentsPage } from './agents-page.js';
import { createApi, problemText } from './api.js';
import { createDashboard, runHash } from './dashboard.js';
import { $ } from './dom.js';
import { createPlayground } from './playground.js';
import { createRunPage } from './run-page.js';

const STORAGE = { key: 'svc-studio.key', tenant: 'svc-studio.tenant' };
const RETRY_MS = 3000;

const form = $('connect');
const keyInput = $('key');
const tenantInput = $('tenant');

/** What the user chose; kept for the browser tab's life (sessionStorage), never sent elsewhere. */
const settings = { key: '', tenant: '' };
/** Bumped on every new choice, so an answer to an old one is never acted on. */
let generation = 0;
let retry;

function status(text, kind = '') {
  $('status').textContent = text;
  $('status').className = kind;
}

function say(text, kind = 'info') {
  const line = $('message');
  line.hidden = !text;
  line.textContent = text;
  line.className = kind;
}

const go = (hash) => {
  location.hash = hash;
};

const api = createApi(() => settings.key);
const access = createAccess(api);
const views = {
  dashboard: createDashboard({ api, access, settings, status, say }),
  run: createRunPage({ api, access, say, go }),
  agents: createAgentsPage({ api, access, settings }),
  playground: createPlayground({ api, access, settings, say }),
};

/** The view and its parameters the fragment names; anything unknown is the dashboard. */
function route() {
  const [path, search = ''] = location.hash.replace(/^#/, '').split('?');
  const params = new URLSearchParams(search);
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  if (parts[0] === 'runs' && parts[1]) {
    return {
      view: 'run',
      params: { id: parts[1], tenant: params.get('tenant') || settings.tenant },
    };
  }
  if (parts[0] === 'agents') return { view: 'agents', params: { name: parts[1] } };
  if (parts[0] === 'playground') {
    return { view: 'playground', params: { agent: params.get('agent') || undefined } };
  }
  return { view: 'dashboard', params: {} };
}

let current = null;

function render() {
  const { view, params } = route();
  for (const link of document.querySelectorAll('nav a[data-route]')) {
    if (link.dataset.route === view) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  if (!access.known) return;
  if (current && current !== view) views[current].hide();
  current = view;
  if (view === 'run' && !params.tenant) {
    say('Choose a tenant (then Show) to open a run by its id.', 'error');
    return;
  }
  views[view].show(params);
}

function hideAll() {
  for (const view of Object.values(views)) view.hide();
  current = null;
}

/** Asks what the key may do, then shows the view; retried while the gateway does not answer. */
async function connect(round) {
  status('Asking the gateway what this key may do…');
  let answer;
  try {
    answer = await access.load();
  } catch {
    if (round !== generation) return;
    status('The gateway does not answer; trying again.', 'error');
    retry = setTimeout(() => void connect(round), RETRY_MS);
    return;
  }
  if (round !== generation) return;
  if (!access.known && (answer.status === 429 || answer.status >= 500)) {
    status(
      `The gateway cannot answer now (${problemText(answer.status, answer.body)}); trying again.`,
      'error',
    );
    retry = setTimeout(() => void connect(round), RETRY_MS);
    return;
  }
  if (!access.known) {
    // A refused key does not get better by asking again.
    status(`The gateway refused the key: ${problemText(answer.status, answer.body)}`, 'error');
    $('whoami').textContent = '';
    return;
  }
  $('whoami').textContent = access.describe();
  const bound = access.tenant;
  if (bound && !settings.tenant) {
    settings.tenant = bound;
    tenantInput.value = bound;
    sessionStorage.setItem(STORAGE.tenant, bound);
  }
  if (bound && settings.tenant !== bound) {
    status(`This key may only act for tenant ${bound}: choose it, then Show.`, 'error');
    return;
  }
  status('');
  render();
}

function start() {
  clearTimeout(retry);
  generation += 1;
  hideAll();
  access.forget();
  void connect(generation);
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  settings.key = keyInput.value.trim();
  settings.tenant = tenantInput.value.trim();
  sessionStorage.setItem(STORAGE.key, settings.key);
  sessionStorage.setItem(STORAGE.tenant, settings.tenant);
  say('');
  start();
});

$('open-run').addEventListener('submit', (event) => {
  event.preventDefault();
  const runId = $('run-input').value.trim();
  if (!runId) return;
  if (!settings.tenant) {
    say('Choose a tenant (then Show) to open a run by its id.', 'error');
    return;
  }
  say('');
  go(runHash(runId, settings.tenant));
});

$('forget').addEventListener('click', () => {
  sessionStorage.removeItem(STORAGE.key);
  keyInput.value = '';
  settings.key = '';
  clearTimeout(retry);
  generation += 1;
  hideAll();
  access.forget();
  $('whoami').textContent = '';
  status('Key forgotten. Enter a key, then Show.');
});

window.addEventListener('hashchange', render);

keyInput.value = sessionStorage.getItem(STORAGE.key) ?? '';
tenantInput.value = sessionStorage.getItem(STORAGE.tenant) ?? '';
if (keyInput.value || tenantInput.value) form.requestSubmit();
else render();
