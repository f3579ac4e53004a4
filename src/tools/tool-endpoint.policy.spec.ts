import { afterEach, describe, expect, it } from '@jest/globals';
import { ConfigService } from '@nestjs/config';
import type { GatewayConfig } from '../platform/config/gateway-config.js';
import { loadConfig } from '../platform/config/load-config.js';
import { systemLookup } from '../platform/http/egress-agent.js';
import { TenantEgress } from '../platform/http/tenant-egress.js';
import { ToolEndpointPolicy } from './tool-endpoint.policy.js';

const egresses: TenantEgress[] = [];
function policy(env: Record<string, string> = {}): ToolEndpointPolicy {
  const config = new ConfigService(loadConfig(env)) as unknown as ConfigService<
    GatewayConfig,
    true
  >;
  const egress = new TenantEgress(config, systemLookup);
  egresses.push(egress);
  return new ToolEndpointPolicy(egress);
}

afterEach(async () => {
  await Promise.all(egresses.splice(0).map((egress) => egress.onApplicationShutdown()));
});

describe('ToolEndpointPolicy', () => {
  it('always refuses cloud metadata and link-local addresses, in any spelling', () => {
    for (const open of [policy(), policy({ SVC_TOOL_ALLOWED_HOSTS: '*' })]) {
      for (const url of [
        'http://169.254.169.254/latest/meta-data/',
        'http://[::ffff:169.254.169.254]/latest/meta-data/',
        'http://[fe80::1]/x',
        'http://[fd00:ec2::254]/x',
        'http://metadata.google.internal/computeMetadata/v1/',
        'http://100.100.100.200/',
      ]) {
        expect(open.refusal(url)).toMatch(/^tool endpoints may not point at link-local, metadata/);
      }
    }
  });

  it('allows any other host on loopback when SVC_TOOL_ALLOWED_HOSTS is unset', () => {
    expect(policy().refusal('http://127.0.0.1:9000/tool')).toBeNull();
    expect(policy().refusal('https://tools.example.com/x')).toBeNull();
  });

  it('refuses loopback and private hosts when the gateway listens off loopback', () => {
    const exposed = policy({ SVC_HOST: '0.0.0.0', SVC_API_KEY: 'a-long-enough-key' });
    expect(exposed.refusal('http://127.0.0.1:9000/tool')).toMatch(
      /^tool endpoint refused: 127\.0\.0\.1, a loopback address, .*SVC_TOOL_ALLOWED_HOSTS/,
    );
    expect(exposed.refusal('https://tools.example.com/x')).toBeNull();
    const allowed = policy({ SVC_HOST: '::', SVC_TOOL_ALLOWED_HOSTS: '127.0.0.1' });
    expect(allowed.refusal('http://127.0.0.1:9000/tool')).toBeNull();
  });

  it('narrows hosts to SVC_TOOL_ALLOWED_HOSTS: names and *.suffix patterns', () => {
    const narrow = policy({ SVC_TOOL_ALLOWED_HOSTS: 'tools.example.com, *.svc.cluster.local' });
    expect(narrow.refusal('https://tools.example.com/a')).toBeNull();
    expect(narrow.refusal('http://orders.shop.svc.cluster.local:8080/a')).toBeNull();
    expect(narrow.refusal('http://127.0.0.1/a')).toBe(
      'tool endpoint refused: host 127.0.0.1 is not in SVC_TOOL_ALLOWED_HOSTS',
    );
    expect(narrow.refusal('http://evil-example.com/a')).not.toBeNull();
  });
});
