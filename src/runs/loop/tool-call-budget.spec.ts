import { describe, expect, it } from '@jest/globals';
import { ToolCallBudget, ToolCallLimitExceeded } from './tool-call-budget.js';

const limits = { maxToolCallsPerTurn: 4, maxToolCallsPerRun: 10 };

describe('ToolCallBudget', () => {
  it('admits whole turns within both bounds and counts them', () => {
    const budget = new ToolCallBudget(limits);
    budget.admit(4);
    budget.admit(4);
    budget.admit(2);
    expect(budget.used).toBe(10);
  });

  it('refuses a turn over the per-turn bound with a 502 naming the setting, counting nothing', () => {
    const budget = new ToolCallBudget(limits);
    const refusal = (() => {
      try {
        budget.admit(5000);
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(ToolCallLimitExceeded);
    const problem = refusal as ToolCallLimitExceeded;
    expect(problem.getStatus()).toBe(502);
    expect(problem.slug).toBe('too-many-tool-calls');
    expect(problem.message).toMatch(/5000 tool calls in one answer; at most 4 .*PER_TURN/);
    expect(budget.used).toBe(0);
  });

  it('refuses the turn that would pass the per-run bound, whole', () => {
    const budget = new ToolCallBudget(limits, 8);
    expect(() => budget.admit(3)).toThrow(/3 more tool calls after 8; at most 10 .*PER_RUN/);
    expect(budget.used).toBe(8);
    budget.admit(2);
    expect(() => budget.admit(1)).toThrow(ToolCallLimitExceeded);
  });
});
