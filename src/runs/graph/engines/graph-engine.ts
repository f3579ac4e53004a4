import type { GraphExecution } from '../graph-execution.js';

/**
 * A topology's engine (pipeline, parallel, supervisor). `advance` runs what can run now and
 * returns when the graph is finished or waits for a human decision; it can be called again on
 * the same state after a takeover or an approval and continues where the checkpoint stands.
 */
export abstract class GraphEngine {
  abstract advance(execution: GraphExecution): Promise<void>;
}
