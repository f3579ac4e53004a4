import { describe, expect, it } from '@jest/globals';
import { OriginPolicy } from './origin.policy.js';

const refused = (policy: OriginPolicy, host?: string, origin?: string) =>
  policy.refusal({ host, origin }) !== null;

describe('OriginPolicy', () => {
  it('with no lists and a loopback bind: loopback Host names and loopback origins only', () => {
    const policy = new OriginPolicy({}, '127.0.0.1');
    for (const host of ['127.0.0.1:8080', 'localhost', 'LOCALHOST:1', '[::1]:8080', '127.1.2.3']) {
      expect(refused(policy, host)).toBe(false);
    }
    expect(refused(policy, 'evil.example:8080')).toBe(true);
    expect(refused(policy, undefined)).toBe(true);
    expect(refused(policy, 'localhost', 'http://localhost:6274')).toBe(false);
    expect(refused(policy, 'localhost', 'https://[::1]')).toBe(false);
    expect(refused(policy, 'localhost', 'http://evil.example')).toBe(true);
    expect(refused(policy, 'localhost', 'null')).toBe(true);
  });

  it('with no lists and a public bind: any Host (the key guards it), still no foreign origin', () => {
    const policy = new OriginPolicy({}, '0.0.0.0');
    expect(refused(policy, 'gateway.example.com')).toBe(false);
    expect(refused(policy, 'gateway.example.com', 'https://evil.example')).toBe(true);
  });

  it('checks the lists when set: a name matches any port, name:port only that port', () => {
    const policy = new OriginPolicy(
      {
        allowedHosts: ['mcp.example.com', 'gw.internal:8443'],
        allowedOrigins: ['https://app.example.com'],
      },
      '127.0.0.1',
    );
    expect(refused(policy, 'MCP.example.com:443')).toBe(false);
    expect(refused(policy, 'gw.internal:8443')).toBe(false);
    expect(refused(policy, 'gw.internal:9000')).toBe(true);
    expect(refused(policy, 'localhost')).toBe(true);
    expect(refused(policy, 'mcp.example.com', 'https://app.example.com')).toBe(false);
    expect(refused(policy, 'mcp.example.com', 'http://localhost:6274')).toBe(true);
  });

  it('turns a check off with *', () => {
    const policy = new OriginPolicy({ allowedHosts: ['*'], allowedOrigins: ['*'] }, '127.0.0.1');
    expect(refused(policy, 'anything.example', 'https://anywhere.example')).toBe(false);
  });
});
