import type { Role as SdkRole, TaskState as SdkTaskState } from '@a2a-js/sdk';
import { LazyModule } from '../../platform/lazy/lazy-module.js';

/**
 * The root of the A2A SDK (the protocol's message codecs, and the jose library it pulls in),
 * imported where a card, a push notification or a task is serialized: its server transports and
 * client are imported on first use too (A2AController, A2AClients), so a replica that serves no
 * A2A loads none of it. Its error classes stay a static import (`@a2a-js/sdk/errors`): small.
 */
export const a2aSdk = new LazyModule<typeof import('@a2a-js/sdk')>(
  '@a2a-js/sdk',
  () => import('@a2a-js/sdk'),
);

/** The members of a numeric enum, without its reverse mapping. */
type Members<E> = { readonly [K in Exclude<keyof E, number>]: E[K] };

/**
 * The protocol's task states and roles (the SDK's `TaskState` and `Role` enums, generated from
 * a2a.proto), copied so that what is loaded at start needs no SDK; a2a-sdk.spec.ts checks them.
 */
export const TaskState: Members<typeof SdkTaskState> = {
  TASK_STATE_UNSPECIFIED: 0,
  TASK_STATE_SUBMITTED: 1,
  TASK_STATE_WORKING: 2,
  TASK_STATE_COMPLETED: 3,
  TASK_STATE_FAILED: 4,
  TASK_STATE_CANCELED: 5,
  TASK_STATE_INPUT_REQUIRED: 6,
  TASK_STATE_REJECTED: 7,
  TASK_STATE_AUTH_REQUIRED: 8,
  UNRECOGNIZED: -1,
};
export type TaskState = SdkTaskState;

export const Role: Members<typeof SdkRole> = {
  ROLE_UNSPECIFIED: 0,
  ROLE_USER: 1,
  ROLE_AGENT: 2,
  UNRECOGNIZED: -1,
};
export type Role = SdkRole;

const STATE_NAMES = new Map<number, string>(
  Object.entries(TaskState).map(([name, value]) => [value, name]),
);

/** The name of a task state (`TASK_STATE_COMPLETED`); undefined for a value the protocol lacks. */
export function taskStateName(state: number): string | undefined {
  return STATE_NAMES.get(state);
}
