import { describe, expect, it } from '@jest/globals';
import { ConfigService } from '@nestjs/config';
import type { GatewayConfig } from '../config/gateway-config.js';
import { loadConfig } from '../config/load-config.js';
import { ToolEndpointPolicy } from './tool-endpoint.policy.js';

function policy(env: Record<string, string> = {}): ToolEndpointPolicy {
  const config = new ConfigService(loadConfig(env)) as unknown as ConfigService<
    GatewayConfig,
    true
  >;
  return new ToolEndpointPolicy(config);
}

describe('ToolEndpointPolicy', () => {
  it('always refuses cloud metadata and link-local addresses', () => {
    const open = policy();
    for (const url of [
      'http://169.254.169.254/latest/meta-data/',
      'http://[fe80::1]/x',
      'http://[fd00:ec2::254]/x',
      'http://metadata.google.internal/computeMetadata/v1/',
    ]) {
      expect(open.refusal(url)).toMatch(/link-local or metadata/);
    }
    expect(
      policy({ SVC_TOOL_ALLOWED_HOSTS: '*' }).refusal('http://169.254.169.254/'),
    ).not.toBeNull();
  });

  it('allows any other host when SVC_TOOL_ALLOWED_HOSTS is unset', () => {
    expect(policy().refusal('http://127.0.0.1:9000/tool')).toBeNull();
    expect(policy().refusal('https://tools.example.com/x')).toBeNull();
  });

  it('narrows hosts to SVC_TOOL_ALLOWED_HOSTS: names and *.suffix patterns', () => {
    const narrow = policy({ SVC_TOOL_ALLOWED_HOSTS: 'tools.example.com, *.svc.cluster.local' });
    expect(narrow.refusal('https://tools.example.com/a')).toBeNull();
    expect(narrow.refusal('http://orders.shop.svc.cluster.local:8080/a')).toBeNull();
    expect(narrow.refusal('http://127.0.0.1/a')).toBe(
      'host 127.0.0.1 is not in SVC_TOOL_ALLOWED_HOSTS',
    );
    expect(narrow.refusal('http://evil-example.com/a')).not.toBeNull();
  });
});
