import { describe, expect, it } from '@jest/globals';
import { gatewayUrl, localGatewayUrl } from './gateway-client.js';

describe('the gateway the CLI talks to', () => {
  it('defaults to the local serve address', () => {
    expect(localGatewayUrl({})).toBe('http://127.0.0.1:8080');
    expect(localGatewayUrl({ SVC_PORT: '9001', SVC_HOST: '' })).toBe('http://127.0.0.1:9001');
    expect(localGatewayUrl({ SVC_HOST: '0.0.0.0' })).toBe('http://127.0.0.1:8080');
    expect(localGatewayUrl({ SVC_HOST: '10.1.2.3', SVC_PORT: '81' })).toBe('http://10.1.2.3:81');
    expect(localGatewayUrl({ SVC_HOST: '::1' })).toBe('http://[::1]:8080');
    expect(() => localGatewayUrl({ SVC_PORT: 'abc' })).toThrow(
      'SVC_PORT must be an integer between 1 and 65535 (got "abc")',
    );
  });

  it('takes --url as given, without a trailing slash, and refuses what is not http(s)', () => {
    expect(gatewayUrl('http://gw.internal:8080/', {})).toBe('http://gw.internal:8080');
    expect(gatewayUrl('https://gw.example.com/prefix/', {})).toBe('https://gw.example.com/prefix');
    expect(gatewayUrl(undefined, { SVC_PORT: '7000' })).toBe('http://127.0.0.1:7000');
    expect(() => gatewayUrl('gw:8080', {})).toThrow('--url must be an http:// or https:// URL');
    expect(() => gatewayUrl('not a url', {})).toThrow('--url must be an http:// or https:// URL');
    expect(() => gatewayUrl('http://u:p@gw', {})).toThrow('must not carry a user or password');
  });
});
