import type { Request } from 'express';
import { ValidationProblem } from '../platform/http/problem.js';
import type { JsonValue } from '../platform/state/state-store.js';
import { MAX_SESSION_ID } from '../platform/state/state-key.limits.js';
import type { RunRequest } from '../runs/run-request.js';
import type { ChatCompletionDto } from './dto/chat-completion.dto.js';
import { runInput } from './wire-input.js';
import { refusedFields } from './wire-options.js';

const ID = /^[A-Za-z0-9_.:-]+$/;

/** A header naming one of our identifiers, checked as the REST field it stands for is. */
function idHeader(req: Request, name: string, field: string, max: number): string | undefined {
  const value = req.headers[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length === 0 || value.length > max || !ID.test(value)) {
    throw new ValidationProblem([
      {
        path: field,
        message: `the ${name} header must be 1 to ${max} letters, digits, _ . : or -`,
      },
    ]);
  }
  return value;
}

/**
 * The run an OpenAI request asks for: `model` is the agent, the messages its input (see
 * runInput). Headers carry what OpenAI's body has no field for: `X-Session-Id` continues a
 * session, `X-Toolset` picks the toolset, `Idempotency-Key` becomes the run id (a repeated
 * request answers the same run). `metadata`, `user` and `safety_identifier` go to the run's
 * metadata. Settings a run cannot honour are refused (refusedFields), the rest are ignored.
 */
export function wireRunRequest(
  body: ChatCompletionDto,
  req: Request,
  context: { tenantId: string; actor: string; maxTurns: number },
): RunRequest {
  const refused = refusedFields(body);
  if (refused.length > 0) throw ValidationProblem.listing(refused);
  const sessionId = idHeader(req, 'x-session-id', 'X-Session-Id', MAX_SESSION_ID - 16);
  const runId = idHeader(req, 'idempotency-key', 'Idempotency-Key', 200);
  const toolset = idHeader(req, 'x-toolset', 'X-Toolset', 64) ?? 'default';
  const metadata: { [key: string]: JsonValue } = {
    ...body.metadata,
    ...(body.user !== undefined && { user: body.user }),
    ...(body.safety_identifier !== undefined && { safety_identifier: body.safety_identifier }),
  };
  return {
    tenantId: context.tenantId,
    agent: body.model,
    toolset,
    input: runInput(body.messages, sessionId !== undefined),
    ...(runId !== undefined && { runId }),
    ...(sessionId !== undefined && { sessionId }),
    maxTurns: context.maxTurns,
    multitask: 'enqueue',
    ...(Object.keys(metadata).length > 0 && { metadata }),
    actor: context.actor,
  };
}
