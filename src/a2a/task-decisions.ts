import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { Message, Task } from '@a2a-js/sdk';
import { RequestMalformedError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { permits } from '../platform/auth/permissions.js';
import { runScope } from '../platform/state/state-scopes.js';
import { StateConflictError, type StateKey, StateStore } from '../platform/state/state-store.js';
import { ApprovalService } from '../runs/approval/approval.service.js';
import type { A2ACaller } from './a2a-caller.js';
import { gatewayError } from './a2a-errors.js';
import { A2ATaskRecords } from './task-records.js';
import { messageText, toTask } from './task-shapes.js';

interface Decision {
  approve: boolean;
  comment?: string;
}

/** The decision a follow-up message carries, if it carries one. */
function decisionOf(message: Message): Decision | undefined {
  for (const part of message.parts) {
    const content = part.content;
    if (content?.$case === 'data' && content.value && typeof content.value === 'object') {
      const { decision, comment } = content.value as { decision?: unknown; comment?: unknown };
      if (decision === 'approve' || decision === 'deny') {
        return {
          approve: decision === 'approve',
          ...(typeof comment === 'string' && { comment }),
        };
      }
    }
  }
  const text = messageText(message).trim().toLowerCase();
  if (text === 'approve' || text === 'deny') return { approve: text === 'approve' };
  return undefined;
}

/** Where the run remembers that a message's decision was taken (one entry per message id). */
function decisionKey(tenantId: string, runId: string, messageId: string): StateKey {
  const id = createHash('sha256').update(messageId).digest('base64url');
  return { tenantId, sessionId: runScope(runId), key: `a2a-decision:${id}` };
}

/**
 * A follow-up message to a task waiting for an approval (`input-required`): its decision (a data
 * part `{"decision": "approve" | "deny", "comment"?}`, or the text `approve`/`deny`) is taken as
 * `POST /v1/runs/{id}/approve|deny` would take it, with the same `approve:*` permission. The
 * message id makes it idempotent: the same message sent again (a client retrying) answers the
 * task as it stands instead of deciding twice or being refused because the task moved on.
 */
@Injectable()
export class A2ATaskDecisions {
  constructor(
    private readonly tasks: A2ATaskRecords,
    private readonly approvals: ApprovalService,
    private readonly store: StateStore,
  ) {}

  async decide(
    caller: A2ACaller,
    tenantId: string,
    message: Message,
    historyLength?: number,
  ): Promise<Task> {
    if (!permits(caller.principal.permissions, 'approve:*')) {
      throw gatewayError(
        caller.binding,
        403,
        'deciding a task waiting for input needs the permission approve:*, which this key lacks',
      );
    }
    const run = await this.tasks.read(tenantId, caller.agent, message.taskId);
    const decision = decisionOf(message);
    if (!decision) {
      throw new RequestMalformedError(
        'a follow-up message carries the decision: a data part {"decision": "approve"} or {"decision": "deny"}',
      );
    }
    const marker = decisionKey(tenantId, run.run_id, message.messageId);
    if (await this.store.get(marker)) return toTask(run, historyLength);
    if (run.status !== 'paused' || !run.pending_node) {
      throw new UnsupportedOperationError(
        `task ${JSON.stringify(run.run_id)} is ${run.status}; only a task waiting for input takes a follow-up message`,
      );
    }
    try {
      await this.store.put(
        marker,
        { decision: decision.approve ? 'approve' : 'deny', at: new Date().toISOString() },
        { expectedVersion: 0 },
      );
    } catch (error) {
      // The same message, sent twice at once: the other one decides.
      if (error instanceof StateConflictError) {
        return toTask(await this.tasks.read(tenantId, caller.agent, run.run_id), historyLength);
      }
      throw error;
    }
    try {
      const record = await this.approvals.decide({
        tenantId,
        runId: run.run_id,
        nodeId: run.pending_node,
        decision: decision.approve ? 'approved' : 'denied',
        by: caller.principal.keyId,
        ...(decision.comment !== undefined && { comment: decision.comment }),
      });
      return toTask(record, historyLength);
    } catch (error) {
      // Not decided: the message may be sent again.
      await this.store.delete(marker).catch(() => undefined);
      throw error;
    }
  }
}
