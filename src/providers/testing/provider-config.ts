import type { ProviderConfig } from '../../platform/config/gateway-config.js';
import type { ProviderLogger } from '../provider-http.client.js';

/** A provider configuration for tests: short deadline, overridable. */
export function providerConfig(url: string, extra: Partial<ProviderConfig> = {}): ProviderConfig {
  return { url, kind: 'openai', timeoutMs: 2000, maxTurns: 8, ...extra };
}

/** Keeps what a provider logs, so tests can check it (and keep test output quiet). */
export function captureLogger(): ProviderLogger & { lines: string[] } {
  const lines: string[] = [];
  return { lines, warn: (message: unknown) => lines.push(String(message)) };
}
