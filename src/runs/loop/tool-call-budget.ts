import type { RunLimitsConfig } from '../../platform/config/gateway-config.js';
import { ProblemException } from '../../platform/http/problem.js';

export type ToolCallLimits = Pick<RunLimitsConfig, 'maxToolCallsPerTurn' | 'maxToolCallsPerRun'>;

/**
 * A model asked for more tool calls than a turn or a run may make. 502, like any other answer
 * of the model endpoint the gateway will not act on: the client's request was fine, the model
 * misbehaved, and repeating the request may well succeed.
 */
export class ToolCallLimitExceeded extends ProblemException {
  constructor(detail: string) {
    super(502, detail, 'too-many-tool-calls');
  }
}

/**
 * The tool calls one run may still make. A turn is admitted whole or not at all, before any of
 * its calls starts: over either bound, none of that turn's calls runs and the run fails.
 * One budget is shared by every loop and step of a run (a graph's steps draw on the run's).
 */
export class ToolCallBudget {
  constructor(
    private readonly limits: ToolCallLimits,
    private spent = 0,
  ) {}

  get used(): number {
    return this.spent;
  }

  /** Counts `count` calls of one model answer, or throws ToolCallLimitExceeded. */
  admit(count: number): void {
    const { maxToolCallsPerTurn: perTurn, maxToolCallsPerRun: perRun } = this.limits;
    if (count > perTurn) {
      throw new ToolCallLimitExceeded(
        `the model asked for ${count} tool calls in one answer; at most ${perTurn} are allowed ` +
          `per turn (SVC_MAX_TOOL_CALLS_PER_TURN), so none of them ran`,
      );
    }
    if (this.spent + count > perRun) {
      throw new ToolCallLimitExceeded(
        `the model asked for ${count} more tool calls after ${this.spent}; at most ${perRun} are ` +
          `allowed per run (SVC_MAX_TOOL_CALLS_PER_RUN), so none of them ran`,
      );
    }
    this.spent += count;
  }
}
