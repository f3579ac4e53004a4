import type { ProviderConfig } from '../platform/config/gateway-config.js';
import {
  ChatProvider,
  type ChatCompletion,
  type ChatDelta,
  type ChatRequest,
  type CompletionOptions,
} from './chat.types.js';
import { isObject, parseCompletion } from './completion.parser.js';
import { ProviderHttpClient, type ProviderLogger } from './provider-http.client.js';
import { StreamAssembler, forwardWhole } from './stream-assembler.js';
import { requestedModel } from './usage.js';

/**
 * The spec's own wire format: POST the chat request (`messages`, `tools`, `model`, `toolset`) to the
 * configured URL as is and read `choice.message`. Messages and tools go out in the gateway's shape;
 * tool calls come back in either the OpenAI or the plain `{id, name, arguments}` shape.
 */
export class NativeProvider extends ChatProvider {
  readonly kind = 'native';
  private readonly http: ProviderHttpClient;

  constructor(
    private readonly config: ProviderConfig,
    logger?: ProviderLogger,
  ) {
    super();
    if (!config.url) throw new Error('the native provider needs SVC_PROVIDER_URL');
    this.http = new ProviderHttpClient({
      url: config.url,
      apiKey: config.apiKey,
      timeoutMs: config.timeoutMs,
      logger,
    });
  }

  async complete(request: ChatRequest, options: CompletionOptions = {}): Promise<ChatCompletion> {
    const body = {
      messages: request.messages,
      tools: request.tools,
      model: requestedModel(request.model, this.config),
      toolset: request.toolset,
    };
    if (!options.onDelta) return this.parse(await this.http.postJson(body, options.signal));
    return this.stream(body, options.onDelta, options.signal);
  }

  /**
   * `stream: true` (decisions: "Native streaming"): events `{delta: {content?, tool_calls?},
   * finish_reason?, usage?, model?}`, and optionally a last `{choice, usage?, model?}` with the
   * whole answer, which then wins over the assembled one.
   */
  private async stream(
    body: Record<string, unknown>,
    onDelta: (delta: ChatDelta) => void,
    signal?: AbortSignal,
  ): Promise<ChatCompletion> {
    const parts = new StreamAssembler(onDelta);
    let whole: Record<string, unknown> | undefined;
    const answer = await this.http.postStream(
      { ...body, stream: true },
      (data) => {
        const event = parts.parse(data);
        if (!isObject(event)) return;
        if (typeof event.model === 'string') parts.model = event.model;
        if (isObject(event.usage)) parts.usage = event.usage;
        if (isObject(event.choice)) whole = event;
        parts.addDelta(event.delta);
        if (typeof event.finish_reason === 'string') parts.finishReason = event.finish_reason;
      },
      signal,
    );
    if (!answer.streamed) return forwardWhole(this.parse(answer.value), onDelta);
    if (whole) return this.parse({ model: parts.model, usage: parts.usage, ...whole });
    return this.parse({
      model: parts.model,
      usage: parts.usage,
      choice: { message: parts.message(), finish_reason: parts.finishReason },
    });
  }

  private parse(answer: unknown): ChatCompletion {
    return parseCompletion(answer, isObject(answer) ? answer.choice : undefined, 'choice');
  }
}
