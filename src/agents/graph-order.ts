import type { StepSpec } from './agent-spec.js';

/**
 * The steps in dependency order; among steps that are free to go, the one declared first goes
 * first, so a pipeline without `depends_on` runs in the order it was written. Expects an acyclic
 * graph (checked at registration).
 */
export function executionOrder(steps: readonly StepSpec[]): string[] {
  const done = new Set<string>();
  const order: string[] = [];
  while (order.length < steps.length) {
    const next = steps.find(
      (step) => !done.has(step.id) && (step.depends_on ?? []).every((id) => done.has(id)),
    );
    if (!next) throw new Error('the agent graph has a cycle');
    done.add(next.id);
    order.push(next.id);
  }
  return order;
}

/** Every step `id` depends on, directly or through other steps. */
export function ancestors(steps: readonly StepSpec[], id: string): Set<string> {
  const byId = new Map(steps.map((step) => [step.id, step]));
  const found = new Set<string>();
  const stack = [...(byId.get(id)?.depends_on ?? [])];
  while (stack.length > 0) {
    const next = stack.pop() as string;
    if (found.has(next)) continue;
    found.add(next);
    stack.push(...(byId.get(next)?.depends_on ?? []));
  }
  return found;
}
