// A picture of an agent graph: its steps as boxes in layers by dependency depth (left to
// right), arrows for `depends_on` (solid) and for the order a pipeline runs its steps in or a
// supervisor's calls (dashed). Steps that need approval have a double border; given a run, each
// box shows its step's status and the step the run waits at is highlighted. Plain SVG made
// here: no library, nothing inline that the page's Content-Security-Policy would refuse.

import { clip, el, svg } from './dom.js';

const NODE_W = 168;
const NODE_H = 50;
const GAP_X = 56;
const GAP_Y = 18;
const PAD = 12;
/** Never a step id (ids are names without spaces): the supervisor's own box. */
export const SUPERVISOR = '(supervisor)';

/** The order a pipeline runs its steps in: dependencies first, then as declared (graph-order.ts). */
function executionOrder(steps) {
  const done = new Set();
  const order = [];
  while (order.length < steps.length) {
    const next = steps.find(
      (step) => !done.has(step.id) && (step.depends_on ?? []).every((id) => done.has(id)),
    );
    if (!next) break; // a cycle: registration refuses them, so nothing more to order
    done.add(next.id);
    order.push(next.id);
  }
  return order;
}

/**
 * The nodes and edges of a graph of `topology` with `steps` (an agent specification's, or a
 * run's `graph.definition`), each node with its layer (longest path from a node without
 * incoming edges) and its row in that layer.
 */
export function graphOf(topology, steps) {
  const nodes = steps.map((step) => ({
    id: step.id,
    kind: step.kind,
    what:
      step.kind === 'tool'
        ? `tool ${step.tool ?? '?'}`
        : `agent${step.toolset ? ` · ${step.toolset}` : ''}`,
    approval: step.require_approval === true,
  }));
  const known = new Set(nodes.map((node) => node.id));
  const edges = [];
  const seen = new Set();
  const add = (from, to, implicit) => {
    const key = `${from}\u0000${to}`;
    if (seen.has(key) || !known.has(from) || !known.has(to) || from === to) return;
    seen.add(key);
    edges.push({ from, to, implicit });
  };
  if (topology === 'supervisor') {
    nodes.unshift({ id: SUPERVISOR, kind: 'supervisor', what: 'model picks the next worker' });
    known.add(SUPERVISOR);
    for (const step of steps) add(SUPERVISOR, step.id, true);
  } else {
    for (const step of steps) for (const dep of step.depends_on ?? []) add(dep, step.id, false);
    if (topology === 'pipeline') {
      const order = executionOrder(steps);
      for (let i = 1; i < order.length; i++) add(order[i - 1], order[i], true);
    }
  }
  const incoming = new Map(nodes.map((node) => [node.id, []]));
  for (const edge of edges) incoming.get(edge.to).push(edge.from);
  const layer = new Map();
  const layerOf = (id, path = new Set()) => {
    if (layer.has(id)) return layer.get(id);
    if (path.has(id)) return 0; // a cycle: keep drawing rather than loop
    path.add(id);
    const value = Math.max(-1, ...incoming.get(id).map((from) => layerOf(from, path))) + 1;
    path.delete(id);
    layer.set(id, value);
    return value;
  };
  const rows = new Map();
  for (const node of nodes) {
    node.layer = layerOf(node.id);
    node.row = rows.get(node.layer) ?? 0;
    rows.set(node.layer, node.row + 1);
  }
  return { topology, nodes, edges };
}

/** Where a node's box is. */
function place(node) {
  return { x: PAD + node.layer * (NODE_W + GAP_X), y: PAD + node.row * (NODE_H + GAP_Y) };
}

/**
 * Draws `graph` into `container` (replacing what it holds). `run`, when given: `statuses` (step
 * id → status) and `waiting` (the step a paused run waits at). `name` makes the SVG's ids unique
 * in the page.
 */
export function drawGraph(container, graph, { name, run } = {}) {
  const layers = Math.max(1, ...graph.nodes.map((node) => node.layer + 1));
  const rows = Math.max(1, ...graph.nodes.map((node) => node.row + 1));
  const width = PAD * 2 + layers * NODE_W + (layers - 1) * GAP_X;
  const height = PAD * 2 + rows * NODE_H + (rows - 1) * GAP_Y;
  const picture = svg('svg', {
    class: 'graph-picture',
    width,
    height,
    viewBox: `0 0 ${width} ${height}`,
    role: 'img',
    'aria-label': `Graph: ${graph.nodes.length} nodes, ${graph.edges.length} edges`,
    'data-topology': graph.topology,
  });
  const arrow = `arrow-${name}`;
  const marker = svg('marker', {
    id: arrow,
    viewBox: '0 0 10 10',
    refX: 9,
    refY: 5,
    markerWidth: 7,
    markerHeight: 7,
    orient: 'auto-start-reverse',
  });
  marker.append(svg('path', { d: 'M 0 0 L 10 5 L 0 10 z', class: 'arrow-head' }));
  const defs = svg('defs');
  defs.append(marker);
  picture.append(defs);

  const byId = new Map(graph.nodes.map((node) => [node.id, node]));
  for (const edge of graph.edges) {
    const from = place(byId.get(edge.from));
    const to = place(byId.get(edge.to));
    const x1 = from.x + NODE_W;
    const y1 = from.y + NODE_H / 2;
    const x2 = to.x - 2;
    const y2 = to.y + NODE_H / 2;
    const bend = Math.max(20, (x2 - x1) / 2);
    const path = svg('path', {
      class: `edge${edge.implicit ? ' implicit' : ''}`,
      d: `M ${x1} ${y1} C ${x1 + bend} ${y1}, ${x2 - bend} ${y2}, ${x2} ${y2}`,
      'marker-end': `url(#${arrow})`,
      'data-from': edge.from,
      'data-to': edge.to,
    });
    path.append(svg('title', {}, `${edge.from} → ${edge.to}`));
    picture.append(path);
  }

  for (const node of graph.nodes) {
    const { x, y } = place(node);
    const status = run?.statuses?.get(node.id);
    const waiting = run?.waiting === node.id;
    const classes = ['node', `kind-${node.kind}`];
    if (status) classes.push(`status-${status}`);
    if (node.approval) classes.push('approval');
    if (waiting) classes.push('waiting');
    const box = svg('g', {
      class: classes.join(' '),
      transform: `translate(${x} ${y})`,
      'data-node': node.id,
      'data-status': status,
      'data-approval': node.approval ? 'true' : undefined,
      'data-waiting': waiting ? 'true' : undefined,
    });
    box.append(svg('rect', { width: NODE_W, height: NODE_H, rx: 6 }));
    if (node.approval) {
      box.append(
        svg('rect', { class: 'inner', x: 3, y: 3, width: NODE_W - 6, height: NODE_H - 6, rx: 4 }),
      );
    }
    box.append(svg('text', { x: 10, y: 20, class: 'node-id' }, clip(node.id, 20)));
    const detail = waiting
      ? 'waits for approval'
      : [status, node.approval ? 'needs approval' : node.what].filter(Boolean).join(' · ');
    box.append(svg('text', { x: 10, y: 38, class: 'node-detail' }, clip(detail, 26)));
    const title = [node.id, node.what, node.approval ? 'needs approval' : '', status ?? '']
      .filter(Boolean)
      .join(' · ');
    box.append(svg('title', {}, title));
    picture.append(box);
  }

  const legend = el(
    'p',
    'Solid arrows: depends on. Dashed: runs after (a pipeline) or is called by the supervisor. ' +
      'Double border: needs approval.',
    'note legend',
  );
  container.replaceChildren(picture, legend);
  return picture;
}
