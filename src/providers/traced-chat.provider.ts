import { performance } from 'node:perf_hooks';
import { Metrics } from '../platform/telemetry/metrics.service.js';
import { chatResponseAttributes, chatSpan } from '../platform/telemetry/span-specs.js';
import { Tracing } from '../platform/telemetry/tracing.service.js';
import {
  ChatProvider,
  type ChatCompletion,
  type ChatRequest,
  type CompletionOptions,
} from './chat.types.js';

/**
 * The configured provider with a `chat {model}` span, the model-call duration metric and the
 * token usage metric (`gen_ai.client.token.usage`) around every call, so the agent loop and the
 * supervisor's calls are measured in one place.
 */
export class TracedChatProvider extends ChatProvider {
  readonly kind: string;

  constructor(
    readonly inner: ChatProvider,
    /** The model a request without `model` gets (SVC_MODEL, else `default`, as the providers do). */
    private readonly defaultModel: string,
    private readonly tracing: Tracing,
    private readonly metrics: Metrics,
  ) {
    super();
    this.kind = inner.kind;
  }

  complete(request: ChatRequest, options?: CompletionOptions): Promise<ChatCompletion> {
    const model = request.model ?? this.defaultModel;
    return this.tracing.inSpan(chatSpan(this.kind, model), async (span) => {
      const started = performance.now();
      let ok = false;
      try {
        const onDelta = options?.onDelta;
        let first = true;
        const completion = await this.inner.complete(request, {
          ...options,
          ...(onDelta
            ? {
                onDelta: (delta) => {
                  if (first) {
                    first = false;
                    // How long the caller waited for the first piece of a streamed answer.
                    span.setAttribute(
                      'svc.gen_ai.time_to_first_chunk_ms',
                      Math.round(performance.now() - started),
                    );
                  }
                  onDelta(delta);
                },
              }
            : {}),
        });
        span.setAttributes(chatResponseAttributes(completion));
        if (completion.usage) this.metrics.recordTokenUsage(this.kind, model, completion.usage);
        ok = true;
        return completion;
      } finally {
        this.metrics.recordModelCall(this.kind, ok, (performance.now() - started) / 1000);
      }
    });
  }
}
