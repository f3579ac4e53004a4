import { describe, expect, it } from '@jest/globals';
import * as sdk from '@a2a-js/sdk';
import { Role, TaskState, a2aSdk, taskStateName } from './a2a-sdk.js';

describe('the A2A protocol enums', () => {
  it("are the SDK's", async () => {
    const numeric = (values: object) =>
      Object.fromEntries(Object.entries(values).filter(([, value]) => typeof value === 'number'));
    expect(TaskState).toEqual(numeric(sdk.TaskState));
    expect(Role).toEqual(numeric(sdk.Role));
    expect(taskStateName(3)).toBe(sdk.TaskState[3]);
    expect(taskStateName(42)).toBeUndefined();
    expect((await a2aSdk.load()).AgentCard).toBe(sdk.AgentCard);
  });
});
