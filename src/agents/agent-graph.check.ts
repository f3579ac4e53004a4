import type { FieldError } from '../http/problem.js';
import { DEFAULT_TOOLSET } from '../tools/tool.limits.js';
import type { PutAgentDto, StepDto } from './dto/agent-spec.dto.js';

/** Tool names per toolset, as the tenant sees them. */
export type KnownTools = (toolset: string) => ReadonlySet<string> | undefined;

/** The ids of one cycle among the steps, in order, or null when the graph is acyclic. */
function findCycle(steps: StepDto[]): string[] | null {
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
 * Checks an agent graph at registration (issue 5): unique step ids, known `depends_on`, no
 * cycles, the fields each kind needs, and tools that exist in their toolset. Every problem names
 * the offending step (`steps[2].depends_on`).
 */
export function checkAgentGraph(spec: PutAgentDto, knownTools: KnownTools): FieldError[] {
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
  if (spec.topology === 'supervisor' && spec.budget === undefined) {
    errors.push({ path: 'budget', message: 'a supervisor needs a numeric budget (steps)' });
  }
  return errors;
}
