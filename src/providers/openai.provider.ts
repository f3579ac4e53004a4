import type { ProviderConfig } from '../platform/config/gateway-config.js';
import type { ToolSpec } from '../tools/tool.types.js';
import { FunctionNames } from './function-names.js';
import {
  ChatProvider,
  type ChatCompletion,
  type ChatDelta,
  type ChatMessage,
  type ChatRequest,
  type CompletionOptions,
  type ToolCall,
} from './chat.types.js';
import { isObject, parseCompletion } from './completion.parser.js';
import { ProviderHttpClient, type ProviderLogger } from './provider-http.client.js';
import { StreamAssembler, forwardWhole } from './stream-assembler.js';
import { requestedModel } from './usage.js';

/** `{url}/chat/completions`, unless the configured URL already names that path. */
export function chatCompletionsUrl(base: string): string {
  const url = new URL(base);
  const path = url.pathname.replace(/\/+$/, '');
  if (!path.endsWith('/chat/completions')) url.pathname = `${path}/chat/completions`;
  return url.toString();
}

/** Unparsable arguments were kept as their raw text; send that text back unchanged. */
function wireArguments(args: ToolCall['arguments']): string {
  return typeof args === 'string' ? args : JSON.stringify(args);
}

function toWireMessage(message: ChatMessage, names: FunctionNames): Record<string, unknown> {
  const { role, content } = message;
  if (role === 'assistant' && message.tool_calls?.length) {
    const toolCalls = message.tool_calls.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: names.wire(call.name), arguments: wireArguments(call.arguments) },
    }));
    return { role, content, tool_calls: toolCalls };
  }
  if (role === 'tool') {
    return {
      role,
      tool_call_id: message.tool_call_id,
      content,
      ...(message.name ? { name: names.wire(message.name) } : {}),
    };
  }
  return { role, content };
}

function toWireTool(tool: ToolSpec, names: FunctionNames): Record<string, unknown> {
  const { name, description, parameters } = tool;
  return { type: 'function', function: { name: names.wire(name), description, parameters } };
}

/** The completion with the model's tool calls under their real names. */
function withOriginalNames(completion: ChatCompletion, names: FunctionNames): ChatCompletion {
  const calls = completion.message.tool_calls;
  if (!calls?.length) return completion;
  const tool_calls = calls.map((call) => ({ ...call, name: names.original(call.name) }));
  return { ...completion, message: { ...completion.message, tool_calls } };
}

/**
 * OpenAI-compatible chat completions (OpenAI, vLLM, Ollama, llama.cpp server, LiteLLM).
 * The toolset name stays in the gateway: OpenAI's API has no field for it.
 */
export class OpenAiProvider extends ChatProvider {
  readonly kind = 'openai';
  private readonly http: ProviderHttpClient;

  constructor(
    private readonly config: ProviderConfig,
    logger?: ProviderLogger,
  ) {
    super();
    if (!config.url) throw new Error('the openai provider needs SVC_PROVIDER_URL');
    const url = chatCompletionsUrl(config.url);
    this.http = new ProviderHttpClient({
      url,
      apiKey: config.apiKey,
      timeoutMs: config.timeoutMs,
      logger,
    });
  }

  async complete(request: ChatRequest, options: CompletionOptions = {}): Promise<ChatCompletion> {
    const names = new FunctionNames(request.tools.map((tool) => tool.name));
    const body: Record<string, unknown> = {
      // OpenAI-compatible servers require a model; many serve one and ignore the name.
      model: requestedModel(request.model, this.config),
      messages: request.messages.map((message) => toWireMessage(message, names)),
    };
    if (request.tools.length > 0) body.tools = request.tools.map((tool) => toWireTool(tool, names));
    const { onDelta } = options;
    if (!onDelta) {
      return withOriginalNames(this.parse(await this.http.postJson(body, options.signal)), names);
    }
    // Deltas carry the model's names too: a streamed call's name is the real one as well.
    const relay = (delta: ChatDelta) =>
      onDelta(
        delta.kind === 'tool_call' && delta.name
          ? { ...delta, name: names.original(delta.name) }
          : delta,
      );
    return withOriginalNames(await this.stream(body, relay, options.signal), names);
  }

  /**
   * `stream: true`: chunks of `choices[0].delta` are passed on as they come and put back
   * together into the completion a non-streamed call answers (usage from the last chunk).
   */
  private async stream(
    body: Record<string, unknown>,
    onDelta: (delta: ChatDelta) => void,
    signal?: AbortSignal,
  ): Promise<ChatCompletion> {
    const parts = new StreamAssembler(onDelta);
    const answer = await this.http.postStream(
      { ...body, stream: true, stream_options: { include_usage: true } },
      (data) => {
        const chunk = parts.parse(data);
        if (!isObject(chunk)) return;
        if (typeof chunk.model === 'string') parts.model = chunk.model;
        if (isObject(chunk.usage)) parts.usage = chunk.usage;
        const choices: unknown = chunk.choices;
        const choice: unknown = Array.isArray(choices) ? choices[0] : undefined;
        if (!isObject(choice)) return;
        parts.addDelta(choice.delta);
        if (typeof choice.finish_reason === 'string') parts.finishReason = choice.finish_reason;
      },
      signal,
    );
    if (!answer.streamed) return forwardWhole(this.parse(answer.value), onDelta);
    return this.parse({
      model: parts.model,
      usage: parts.usage,
      choices: [{ message: parts.message(), finish_reason: parts.finishReason }],
    });
  }

  private parse(answer: unknown): ChatCompletion {
    const choices = isObject(answer) ? answer.choices : undefined;
    return parseCompletion(answer, Array.isArray(choices) ? choices[0] : undefined, 'choices[0]');
  }
}
