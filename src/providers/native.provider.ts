import type { ProviderConfig } from '../platform/config/gateway-config.js';
import {
  ChatProvider,
  type ChatCompletion,
  type ChatRequest,
  type CompletionOptions,
} from './chat.types.js';
import { isObject, parseCompletion } from './completion.parser.js';
import { ProviderHttpClient, type ProviderLogger } from './provider-http.client.js';

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
      model: request.model ?? this.config.model ?? 'default',
      toolset: request.toolset,
    };
    const answer = await this.http.postJson(body, options.signal);
    return parseCompletion(answer, isObject(answer) ? answer.choice : undefined, 'choice');
  }
}
