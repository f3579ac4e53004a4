import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Response } from 'express';
import type { GatewayConfig } from '../platform/config/gateway-config.js';
import { classifyError } from '../platform/http/classify-error.js';
import { EventStream } from '../platform/http/event-stream.js';
import { problemTitle, problemType } from '../platform/http/problem.js';
import { AgentRunner } from '../runs/agent-runner.service.js';
import { RunEventFeed } from '../runs/events/run-event-feed.js';
import { answerDelta, runAtEnd } from '../runs/events/run-event-reading.js';
import type { RunRecord } from '../runs/record/run-record.js';
import type { RunRequest } from '../runs/run-request.js';
import { startDetached } from '../runs/start/detached-run.js';
import { completedOrProblem, runHeaders } from './run-outcome.js';
import { createdOf, finishReasonOf, toChunk, usageChunk, usageOf } from './completion-shapes.js';
import { toOpenAiError } from './openai-error.js';

type StreamedRun = { run_id: string; created: number; agent: string };

/**
 * A streamed completion: the run starts detached (as `POST /v1/agent/run` with `stream: true`
 * does), and its event log becomes `chat.completion.chunk`s: the role first, then each piece
 * of text the model writes (`model.delta`; a graph's steps are its own, so a graph answers its
 * output whole at the end), then the finish reason, the usage when asked, and `[DONE]`. A run
 * that fails or stops for an approval ends the stream with an OpenAI error object, as OpenAI's
 * SDKs read one. The run goes on when the client leaves.
 */
@Injectable()
export class CompletionStreams {
  private readonly logger = new Logger('ChatCompletions');
  private readonly heartbeatMs: number;

  constructor(
    private readonly runner: AgentRunner,
    private readonly feed: RunEventFeed,
    config: ConfigService<GatewayConfig, true>,
  ) {
    this.heartbeatMs = config.get('runEvents', { infer: true }).heartbeatMs;
  }

  async stream(
    request: RunRequest & { runId: string },
    includeUsage: boolean,
    res: Response,
  ): Promise<void> {
    // Until the run is recorded a failure is an ordinary error response (the filter's).
    const started = await startDetached(this.runner, { ...request, deltas: true }, this.logger);
    const run: StreamedRun = {
      run_id: started.record.run_id,
      created: createdOf(started.record),
      agent: started.record.agent,
    };
    const stream = new EventStream(res, this.heartbeatMs);
    stream.open(runHeaders(started.record));
    const send = (data: unknown) => stream.sendData(JSON.stringify(data));
    let streamed = false;
    const settle = async (record: RunRecord) => {
      const finished = completedOrProblem(record);
      if (!streamed && finished.text) await send(toChunk(run, { content: finished.text }));
      await send(toChunk(run, {}, finishReasonOf(finished)));
      if (includeUsage) await send(usageChunk(run, usageOf(finished)));
      await stream.sendData('[DONE]');
    };
    try {
      await send(toChunk(run, { role: 'assistant', content: '' }));
      if (started.ended) return await settle(started.record);
      for await (const batch of this.feed.follow(request.tenantId, run.run_id, 0, stream.closed)) {
        for (const event of batch) {
          const text = answerDelta(event);
          if (text) {
            streamed = true;
            await send(toChunk(run, { content: text }));
          }
          const ended = runAtEnd(event);
          if (ended) return await settle(ended);
        }
      }
    } catch (error) {
      const problem = classifyError(error) ?? { status: 500, detail: 'the run failed' };
      if (problem.status >= 500)
        this.logger.warn(`completion stream of ${run.run_id}: ${String(error)}`);
      await send(
        toOpenAiError({
          type: problemType(problem.status, problem.slug),
          title: problemTitle(problem.status),
          status: problem.status,
          detail: problem.detail,
        }),
      );
    } finally {
      stream.end();
    }
  }
}
