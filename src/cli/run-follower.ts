import type { RunEvent } from '../runs/events/run-event.js';
import type { RunRecord } from '../runs/record/run-record.js';
import { CliFailure } from './cli-errors.js';
import type { ServerSentEvent } from './event-stream-parser.js';
import { type GatewayClient, type GatewayEvents, GatewayUnavailable } from './gateway-client.js';

/** The events after which `svc run` has its answer: the run settled, or waits for a decision. */
const ENDS: ReadonlySet<string> = new Set(['run.settled', 'run.paused']);

export interface Reconnect {
  runId: string;
  /** The id of the last event received: the stream resumes after it. */
  after: number;
  attempt: number;
  attempts: number;
  reason: string;
}

export interface FollowOptions {
  /** Called before each new connection. */
  onReconnect?: (reconnect: Reconnect) => void;
  /** Connections tried in a row without receiving an event, before giving up (default 5). */
  attempts?: number;
  /** The wait before the first of them, doubled for each next one (default 250 ms). */
  backoffMs?: number;
}

/** The run id of `Location: /v1/runs/{id}?tenant_id=…`. */
export function runIdFromLocation(location: string | null): string | undefined {
  const match = location === null ? null : /\/v1\/runs\/([^/?#]+)/.exec(location);
  return match ? decodeURIComponent(match[1]) : undefined;
}

/** A run event from its server-sent event; null for what is not one. */
export function runEventOf(sse: ServerSentEvent): RunEvent | null {
  let body: unknown;
  try {
    body = JSON.parse(sse.data);
  } catch {
    return null;
  }
  const event = body as Partial<RunEvent> | null;
  if (typeof event?.id !== 'number' || typeof event.type !== 'string') return null;
  if (typeof event.data !== 'object' || event.data === null) return null;
  return event as RunEvent;
}

/** The `detail` of the problem an `error` event carries. */
function problemOf(sse: ServerSentEvent): string {
  try {
    const { detail } = JSON.parse(sse.data) as { detail?: unknown };
    if (typeof detail === 'string') return `the gateway's stream failed: ${detail}`;
  } catch {
    // said below
  }
  return "the gateway's stream failed";
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `POST /v1/agent/run` with `stream: true` on a serving gateway, each event handed to `show` as
 * it arrives, until the run settles or pauses; answers the run as that last event has it. When
 * the connection breaks (or the gateway's stream fails) it reads on from
 * `GET /v1/runs/{id}/events` with `Last-Event-ID`, on whichever replica answers, so no event
 * is shown twice or left out. A refusal before the run starts is thrown as the call's failure.
 */
export async function followRemoteRun(
  client: GatewayClient,
  body: { tenant_id: string },
  show: (event: RunEvent) => void,
  options: FollowOptions = {},
): Promise<RunRecord> {
  const attempts = options.attempts ?? 5;
  const backoffMs = options.backoffMs ?? 250;
  const first = await client.events('run', 'POST', '/v1/agent/run', {
    body: { ...body, stream: true },
  });
  // A gateway that answered the run as JSON (it ran it unstreamed): that is the answer.
  if (!('events' in first)) return first.body as RunRecord;

  let stream: GatewayEvents = first;
  let runId = runIdFromLocation(first.location);
  let last = 0;
  let attempt = 0;
  for (;;) {
    let reason = 'the stream ended before the run did';
    try {
      for await (const sse of stream.events) {
        if (sse.event === 'error') {
          reason = problemOf(sse);
          break;
        }
        const event = runEventOf(sse);
        if (!event || event.id <= last) continue;
        last = event.id;
        attempt = 0;
        runId ??= (event.data.run as { run_id?: string } | undefined)?.run_id;
        show(event);
        if (ENDS.has(event.type)) return event.data.run as unknown as RunRecord;
      }
    } catch (error) {
      // Reading the body failed: the connection was cut.
      reason = `the connection was cut (${error instanceof Error ? error.message : String(error)})`;
    } finally {
      stream.close();
    }
    if (runId === undefined) {
      throw new CliFailure(`the gateway at ${client.baseUrl} streamed no run id (${reason})`);
    }
    // Attempts count until an event arrives: a stream that ends at once is one more.
    ({ stream, attempt } = await reconnect(client, runId, body.tenant_id, last, reason, {
      attempts,
      backoffMs,
      from: attempt,
      onReconnect: options.onReconnect,
    }));
  }
}

/** Opens the run's event stream after `after`, trying again with backoff while it may pass. */
async function reconnect(
  client: GatewayClient,
  runId: string,
  tenantId: string,
  after: number,
  cause: string,
  policy: {
    attempts: number;
    backoffMs: number;
    from: number;
    onReconnect?: FollowOptions['onReconnect'];
  },
): Promise<{ stream: GatewayEvents; attempt: number }> {
  const path =
    `/v1/runs/${encodeURIComponent(runId)}/events` + `?tenant_id=${encodeURIComponent(tenantId)}`;
  let reason = cause;
  for (let attempt = policy.from + 1; attempt <= policy.attempts; attempt += 1) {
    policy.onReconnect?.({ runId, after, attempt, attempts: policy.attempts, reason });
    await sleep(policy.backoffMs * 2 ** (attempt - 1));
    try {
      const answer = await client.events('run events', 'GET', path, {
        lastEventId: String(after),
      });
      if ('events' in answer) return { stream: answer, attempt };
      reason = 'the gateway answered without a stream';
    } catch (error) {
      if (!(error instanceof GatewayUnavailable)) throw error;
      reason = error.message;
    }
  }
  throw new CliFailure(
    `lost the events of run ${runId} after event ${after} (${reason}); ` +
      `read them with GET /v1/runs/${runId}/events?tenant_id=${tenantId}`,
  );
}
