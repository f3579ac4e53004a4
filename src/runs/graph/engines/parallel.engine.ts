import { Injectable } from '@nestjs/common';
import type { StepState } from '../graph-run-state.js';
import type { GraphExecution } from '../graph-execution.js';
import { GraphEngine } from './graph-engine.js';

/** Steps of one run in flight at once; the rest wait for a free slot. */
export const MAX_CONCURRENT_STEPS = 16;

/**
 * A DAG: a step starts as soon as every step it depends on has completed, so independent steps
 * run concurrently. A failed step skips its dependants; independent branches go on.
 */
@Injectable()
export class ParallelEngine extends GraphEngine {
  async advance(run: GraphExecution): Promise<void> {
    const inFlight = new Map<string, Promise<StepState>>();
    try {
      for (;;) {
        run.skipBlocked();
        for (const step of run.state.steps) {
          if (inFlight.size >= MAX_CONCURRENT_STEPS) break;
          const startable = step.status === 'pending' || step.status === 'running';
          if (inFlight.has(step.id) || !startable || !run.dependenciesDone(step.id)) continue;
          if (await run.awaitsApproval(step.id)) continue;
          const id = step.id;
          inFlight.set(
            id,
            run.runStep(id).finally(() => inFlight.delete(id)),
          );
        }
        if (inFlight.size === 0) {
          await run.checkpoint();
          return;
        }
        await Promise.race(inFlight.values());
      }
    } finally {
      // On an error, let the other steps finish their own bookkeeping before the run stops.
      await Promise.allSettled(inFlight.values());
    }
  }
}
