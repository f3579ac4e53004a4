// The agents page (#/agents, #/agents/{name}): the tenant's registered graphs (GET /v1/agents)
// and, for one, the picture of its graph and its steps (GET /v1/agents/{name}), with a link to
// start it in the playground. Read once when shown; needs runs:read.

import { problemText, query } from './api.js';
import { $, el, emptyRow, note } from './dom.js';
import { drawGraph, graphOf } from './graph-view.js';

function agentHash(name) {
  return `#/agents/${encodeURIComponent(name)}`;
}

export function createAgentsPage({ api, access, settings }) {
  const section = $('agents');
  /** Bumped on every show, so an answer for an earlier one is not shown. */
  let round = 0;

  const say = (text) => note($('agents-note'), text);

  async function loadList(mine) {
    const answer = await api.get(`/v1/agents${query({ tenant_id: settings.tenant })}`);
    if (mine !== round) return;
    if (!answer.ok) {
      say(`The agents cannot be listed (${problemText(answer.status, answer.body)}).`);
      return;
    }
    const names = answer.body.agents ?? [];
    if (names.length === 0) say(`Tenant ${settings.tenant} has no agent graphs registered.`);
    $('agents-list').replaceChildren(
      ...names.map((name) => {
        const item = el('li');
        const link = el('a', name);
        link.href = agentHash(name);
        link.dataset.agent = name;
        item.append(link);
        return item;
      }),
    );
  }

  function stepRow(step) {
    const tr = el('tr');
    tr.dataset.step = step.id;
    const target =
      step.kind === 'tool'
        ? `${step.toolset ?? 'default'}/${step.tool}`
        : (step.toolset ?? 'default');
    tr.append(
      el('td', step.id, 'id'),
      el('td', step.kind),
      el('td', target),
      el('td', (step.depends_on ?? []).join(', ') || '–'),
      el('td', step.require_approval ? 'needs approval' : '–'),
    );
    return tr;
  }

  async function loadAgent(mine, name) {
    const answer = await api.get(
      `/v1/agents/${encodeURIComponent(name)}${query({ tenant_id: settings.tenant })}`,
    );
    if (mine !== round) return;
    const box = $('agent');
    box.hidden = false;
    $('agent-name').textContent = name;
    if (!answer.ok) {
      $('agent-summary').textContent =
        `The agent cannot be shown (${problemText(answer.status, answer.body)}).`;
      $('agent-graph').replaceChildren();
      $('agent-steps').replaceChildren();
      return;
    }
    const spec = answer.body;
    const steps = spec.steps ?? [];
    $('agent-summary').textContent = [
      `${spec.topology}, ${steps.length} steps, version ${spec.version}`,
      spec.description ?? '',
    ]
      .filter(Boolean)
      .join(' · ');
    box.dataset.agent = name;
    drawGraph($('agent-graph'), graphOf(spec.topology, steps), { name: 'agent' });
    $('agent-steps').replaceChildren(
      ...(steps.length ? steps.map(stepRow) : [emptyRow(5, 'No steps.')]),
    );
    $('agent-play').href = `#/playground${query({ agent: name })}`;
  }

  return {
    show({ name }) {
      section.hidden = false;
      round += 1;
      const mine = round;
      $('agents-list').replaceChildren();
      $('agent').hidden = true;
      if (!access.can('runs:read')) return say(access.cannot('runs:read'));
      if (!settings.tenant) return say('Choose a tenant (then Show) to see its agents.');
      say('');
      void loadList(mine).catch(() => say('The gateway does not answer.'));
      if (name) void loadAgent(mine, name).catch(() => say('The gateway does not answer.'));
    },
    hide() {
      round += 1;
      section.hidden = true;
    },
  };
}
