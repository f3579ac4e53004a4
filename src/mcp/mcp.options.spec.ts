import { describe, expect, it } from '@jest/globals';
import { mcpRoutes, normalizeMountPath, underMcpMount } from './mcp.options.js';

describe('MCP mount paths', () => {
  it('normalises the mount path and lists the routes to keep away from the JSON parser', () => {
    expect(normalizeMountPath('mcp/')).toBe('/mcp');
    expect(normalizeMountPath('/tools/host')).toBe('/tools/host');
    expect(mcpRoutes('/mcp/')).toEqual(['/mcp', '/mcp/{*rest}']);
    expect(() => normalizeMountPath('/')).toThrow(/mount path/);
    expect(() => normalizeMountPath('/a b')).toThrow(/mount path/);
  });

  it('tells the mount and the paths below it from every other path, as Express routes them', () => {
    const isMcp = underMcpMount('/tools/host/');
    for (const path of ['/tools/host', '/tools/host/', '/TOOLS/Host', '/tools/host/health']) {
      expect(isMcp(path)).toBe(true);
    }
    for (const path of ['/tools/hostess', '/tools', '/v1/tools/host', '/']) {
      expect(isMcp(path)).toBe(false);
    }
  });
});
