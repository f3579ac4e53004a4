// The playground (#/playground?agent=…): choose an agent (the plain loop or a registered graph)
// and a toolset, type a prompt, start a run. The run is streamed (POST /v1/agent/run with
// `stream: true`) into a live view of its own (run-view.js), which resumes from the run's event
// log if the stream is cut; a link leads to the run's page. Needs runs:write to start; the
// agent list needs runs:read and the toolset list tools:read.

import { problemText, query, readJson } from './api.js';
import { $, el, note } from './dom.js';
import { runHash } from './dashboard.js';
import { createRunView } from './run-view.js';

const DEFAULT_AGENT = 'default';

/** A run id the page chooses, so the run page can be linked before the first event comes. */
function newRunId() {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return `play-${[...bytes].map((byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}

export function createPlayground({ api, access, settings, say }) {
  const section = $('playground');
  const form = $('play-form');
  const viewBox = $('play');
  let round = 0;

  const view = createRunView({
    root: viewBox,
    prefix: 'play',
    api,
    access,
    say,
    onClose: () => {
      viewBox.hidden = true;
      $('play-link').replaceChildren();
    },
  });

  function option(value, text) {
    const item = el('option', text ?? value);
    item.value = value;
    return item;
  }

  async function loadAgents(mine, chosen) {
    const select = $('play-agent');
    select.replaceChildren(option(DEFAULT_AGENT, 'default (the plain agent loop)'));
    if (chosen && chosen !== DEFAULT_AGENT) select.append(option(chosen));
    select.value = chosen ?? DEFAULT_AGENT;
    if (!access.can('runs:read') || !settings.tenant) return;
    const answer = await api.get(`/v1/agents${query({ tenant_id: settings.tenant })}`);
    if (mine !== round || !answer.ok) return;
    for (const name of answer.body.agents ?? []) {
      if (name !== chosen) select.append(option(name, `${name} (graph)`));
    }
    select.value = chosen ?? DEFAULT_AGENT;
  }

  async function loadToolsets(mine) {
    const list = $('play-toolsets');
    list.replaceChildren();
    if (!access.can('tools:read')) {
      note($('play-tools-note'), `${access.cannot('tools:read')}: type a toolset’s name.`);
      return;
    }
    note($('play-tools-note'), '');
    if (!settings.tenant) return;
    const answer = await api.get(`/v1/toolsets${query({ tenant_id: settings.tenant })}`);
    if (mine !== round || !answer.ok) return;
    list.replaceChildren(
      ...(answer.body.toolsets ?? []).map((toolset) =>
        option(toolset.toolset, `${toolset.tools} tools`),
      ),
    );
  }

  async function start() {
    const tenant = settings.tenant;
    if (!tenant) {
      say('Choose a tenant (then Show) to start a run.', 'error');
      return;
    }
    const prompt = $('play-prompt').value;
    const agent = $('play-agent').value || DEFAULT_AGENT;
    const toolset = $('play-toolset').value.trim();
    const runId = newRunId();
    const body = {
      tenant_id: tenant,
      run_id: runId,
      prompt,
      stream: true,
      ...(agent !== DEFAULT_AGENT ? { agent } : {}),
      ...(agent === DEFAULT_AGENT && toolset ? { toolset } : {}),
    };
    $('play-start').disabled = true;
    say('');
    try {
      const response = await api.request('POST', '/v1/agent/run', {
        body,
        accept: 'text/event-stream',
      });
      const type = response.headers.get('content-type') ?? '';
      if (!type.startsWith('text/event-stream')) {
        const problem = await readJson(response);
        say(`The run did not start: ${problemText(response.status, problem)}`, 'error');
        return;
      }
      const link = el('a', `Open the page of run ${runId}`);
      link.href = runHash(runId, tenant);
      link.dataset.runId = runId;
      $('play-link').replaceChildren(link);
      viewBox.hidden = false;
      view.open(runId, tenant, { stream: response });
    } catch {
      say('The run did not start: the gateway does not answer.', 'error');
    } finally {
      $('play-start').disabled = false;
    }
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void start();
  });

  return {
    show({ agent }) {
      section.hidden = false;
      round += 1;
      const mine = round;
      const mayStart = access.can('runs:write');
      form.hidden = !mayStart;
      note($('play-note'), mayStart ? '' : access.cannot('runs:write'));
      if (!mayStart) return;
      void loadAgents(mine, agent).catch(() => undefined);
      void loadToolsets(mine).catch(() => undefined);
    },
    hide() {
      round += 1;
      section.hidden = true;
    },
  };
}
