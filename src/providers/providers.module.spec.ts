import { describe, expect, it } from '@jest/globals';
import { Test } from '@nestjs/testing';
import { GatewayConfigModule } from '../platform/config/gateway-config.module.js';
import { loadConfig } from '../platform/config/load-config.js';
import { ChatProvider } from './chat.types.js';
import { EchoProvider } from './echo.provider.js';
import { NativeProvider } from './native.provider.js';
import { OpenAiProvider } from './openai.provider.js';
import { ProvidersModule } from './providers.module.js';
import { TracedChatProvider } from './traced-chat.provider.js';
import { TelemetryModule } from '../platform/telemetry/telemetry.module.js';

/** The configured provider inside the tracing wrapper every provider gets. */
async function providerFor(env: Record<string, string>): Promise<ChatProvider> {
  const config = loadConfig({ OTEL_SDK_DISABLED: 'true', ...env });
  const moduleRef = await Test.createTestingModule({
    imports: [
      await GatewayConfigModule.forRoot(config),
      TelemetryModule.forRoot(config.telemetry),
      ProvidersModule,
    ],
  }).compile();
  const provider = moduleRef.get(ChatProvider);
  expect(provider).toBeInstanceOf(TracedChatProvider);
  return (provider as TracedChatProvider).inner;
}

describe('ProvidersModule', () => {
  it('provides the echo provider without a provider URL', async () => {
    expect(await providerFor({})).toBeInstanceOf(EchoProvider);
  });

  it('provides the openai provider for an OpenAI-looking URL', async () => {
    const provider = await providerFor({ SVC_PROVIDER_URL: 'http://127.0.0.1:9/v1' });
    expect(provider).toBeInstanceOf(OpenAiProvider);
    expect(provider.kind).toBe('openai');
  });

  it('provides the native provider when SVC_PROVIDER_KIND says so', async () => {
    const provider = await providerFor({
      SVC_PROVIDER_URL: 'http://127.0.0.1:9/agent/chat',
      SVC_PROVIDER_KIND: 'native',
    });
    expect(provider).toBeInstanceOf(NativeProvider);
  });
});
