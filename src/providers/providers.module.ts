import { Logger, Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { GatewayConfig, ProviderConfig } from '../config/gateway-config.js';
import { ChatProvider } from './chat.types.js';
import { EchoProvider } from './echo.provider.js';
import { NativeProvider } from './native.provider.js';
import { OpenAiProvider } from './openai.provider.js';

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

/** Model providers behind the ChatProvider port: echo (offline), openai, native. */
@Module({
  providers: [
    {
      provide: ChatProvider,
      inject: [ConfigService],
      useFactory: (config: ConfigService<GatewayConfig, true>) =>
        createChatProvider(config.get('provider', { infer: true })),
    },
  ],
  exports: [ChatProvider],
})
export class ProvidersModule {}
