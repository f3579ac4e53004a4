import type { FieldError } from '../platform/http/problem.js';
import { DEFAULT_TOOLSET } from '../tools/tool.limits.js';
import type { AgentSpec, StepSpec } from './agent-spec.js';
import { ancestors, executionOrder } from './graph-order.js';
import { referencedSteps } from './step-references.js';

/** Tool names per toolset, as the tenant sees them. */
export type KnownTools = (toolset: string) => ReadonlySet<string> | undefined;

/** The ids of one cycle among the steps, in order, or null when the graph is acyclic. */
function findCycle(steps: StepSpec[]): string[] | null {
  const edges = new Map(steps.map((step) => [step.id, step.depends_on ?? []]));
  const state = new Map<string, 'visiting' | 'done'>();
  const path: string[] = [];
  const visit = (id: string): string[] | null => {
    if (state.get(id) === 'done') return null;
    if (state.get(id) === 'visiting') return path.slice(path.indexOf(id)).concat(id);
    state.set(id, 'visiting');
    path.push(id);
    for (const next of edges.get(id) ?? []) {
      const cycle = edges.has(next) ? visit(next) : null;
      if (cycle) return cycle;
    }
    path.pop();
    state.set(id, 'done');
    return null;
  };
  for (const step of steps) {
    const cycle = visit(step.id);
    if (cycle) return cycle;
  }
  return null;
}

/**
 * A step may only use outputs that exist when it runs: in a pipeline, of steps that run before
 * it; in a parallel graph, of steps it depends on (directly or not). A supervisor's workers may
 * refer to any step (a worker that has not run yet gives null).
 */
function checkReferences(spec: AgentSpec): FieldError[] {
  const errors: FieldError[] = [];
  const ids = new Set(spec.steps.map((step) => step.id));
  const order = spec.topology === 'pipeline' ? executionOrder(spec.steps) : [];
  spec.steps.forEach((step, i) => {
    const field = step.kind === 'agent' ? 'prompt' : 'arguments';
    const refs = referencedSteps(step.kind === 'agent' ? step.prompt : step.arguments);
    const before =
      spec.topology === 'pipeline'
        ? new Set(order.slice(0, order.indexOf(step.id)))
        : ancestors(spec.steps, step.id);
    for (const ref of refs) {
      const problem = !ids.has(ref)
        ? `refers to unknown step "${ref}"`
        : spec.topology !== 'supervisor' && !before.has(ref)
          ? spec.topology === 'pipeline'
            ? `refers to step "${ref}", which runs after it`
            : `refers to step "${ref}" without depending on it`
          : null;
      if (problem)
        errors.push({ path: `steps[${i}].${field}`, message: `step "${step.id}" ${problem}` });
    }
  });
  return errors;
}

/**
 * Checks an agent graph at registration (issue 5): unique step ids, known `depends_on`, no
 * cycles, the fields each kind needs, and tools that exist in their toolset. Every problem names
 * the offending step (`steps[2].depends_on`).
 */
export function checkAgentGraph(spec: AgentSpec, knownTools: KnownTools): FieldError[] {
  const errors: FieldError[] = [];
  const ids = new Set<string>();
  spec.steps.forEach((step, i) => {
    const at = `steps[${i}]`;
    if (ids.has(step.id))
      errors.push({ path: `${at}.id`, message: `step id "${step.id}" is used twice` });
    ids.add(step.id);
    if (step.kind === 'tool') {
      const toolset = step.toolset ?? DEFAULT_TOOLSET;
      const tools = knownTools(toolset);
      if (!step.tool)
        errors.push({ path: `${at}.tool`, message: `step "${step.id}" of kind tool needs a tool` });
      else if (!tools)
        errors.push({
          path: `${at}.toolset`,
          message: `step "${step.id}": no toolset "${toolset}"`,
        });
      else if (!tools.has(step.tool)) {
        errors.push({
          path: `${at}.tool`,
          message: `step "${step.id}": no tool "${step.tool}" in toolset "${toolset}"`,
        });
      }
    }
    if (step.kind === 'agent') {
      if (!step.prompt)
        errors.push({
          path: `${at}.prompt`,
          message: `step "${step.id}" of kind agent needs a prompt`,
        });
      const toolset = step.toolset ?? DEFAULT_TOOLSET;
      if (!knownTools(toolset))
        errors.push({
          path: `${at}.toolset`,
          message: `step "${step.id}": no toolset "${toolset}"`,
        });
    }
  });
  spec.steps.forEach((step, i) => {
    for (const dependency of step.depends_on ?? []) {
      if (dependency === step.id) {
        errors.push({
          path: `steps[${i}].depends_on`,
          message: `step "${step.id}" depends on itself`,
        });
      } else if (!ids.has(dependency)) {
        errors.push({
          path: `steps[${i}].depends_on`,
          message: `step "${step.id}" depends on unknown step "${dependency}"`,
        });
      }
    }
  });
  const cycle = errors.length === 0 ? findCycle(spec.steps) : null;
  if (cycle) {
    const index = spec.steps.findIndex((step) => step.id === cycle[0]);
    errors.push({
      path: `steps[${index}].depends_on`,
      message: `steps form a cycle: ${cycle.join(' → ')}`,
    });
  }
  if (errors.length === 0) errors.push(...checkReferences(spec));
  if (spec.topology === 'supervisor' && spec.budget === undefined) {
    errors.push({ path: 'budget', message: 'a supervisor needs a numeric budget (steps)' });
  }
  return errors;
}
