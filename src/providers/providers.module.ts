import { Logger, Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { GatewayConfig, ProviderConfig } from '../platform/config/gateway-config.js';
import { Metrics } from '../platform/telemetry/metrics.service.js';
import { Tracing } from '../platform/telemetry/tracing.service.js';
import { ChatProvider } from './chat.types.js';
import { EchoProvider } from './echo.provider.js';
import { NativeProvider } from './native.provider.js';
import { OpenAiProvider } from './openai.provider.js';
import { TracedChatProvider } from './traced-chat.provider.js';
import { requestedModel } from './usage.js';

/** The provider the configuration names (`kind` is already resolved by loadConfig). */
export function createChatProvider(config: ProviderConfig): ChatProvider {
  const logger = new Logger(ChatProvider.name);
  switch (config.kind) {
    case 'echo':
      return new EchoProvider();
    case 'openai':
      return new OpenAiProvider(config, logger);
    case 'native':
      return new NativeProvider(config, logger);
  }
}

/**
 * Model providers behind the ChatProvider port: echo (offline), openai, native, each traced and
 * measured (TracedChatProvider).
 */
@Module({
  providers: [
    {
      provide: ChatProvider,
      inject: [ConfigService, Tracing, Metrics],
      useFactory: (
        config: ConfigService<GatewayConfig, true>,
        tracing: Tracing,
        metrics: Metrics,
      ) => {
        const provider = config.get('provider', { infer: true });
        const model = requestedModel(undefined, provider);
        return new TracedChatProvider(createChatProvider(provider), model, tracing, metrics);
      },
    },
  ],
  exports: [ChatProvider],
})
export class ProvidersModule {}
