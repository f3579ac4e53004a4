import { Injectable } from '@nestjs/common';
import { executionOrder } from '../../../agents/graph-order.js';
import type { GraphExecution } from '../graph-execution.js';
import { GraphEngine } from './graph-engine.js';

/** One step at a time, in dependency order (declaration order among free steps). */
@Injectable()
export class PipelineEngine extends GraphEngine {
  async advance(run: GraphExecution): Promise<void> {
    for (const id of executionOrder(run.state.definition)) {
      const step = run.step(id);
      if (step.status === 'completed') continue;
      // `running` means its owner died mid-step: it runs again. Anything else ends the pipeline.
      if (step.status !== 'pending' && step.status !== 'running') return;
      if (await run.awaitsApproval(id)) return;
      if ((await run.runStep(id)).status === 'failed') {
        run.skipRest();
        await run.checkpoint();
        return;
      }
    }
  }
}
