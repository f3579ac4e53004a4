import { describe, expect, it } from '@jest/globals';
import { mcpRoutes, normalizeMountPath } from './mcp.options.js';

describe('MCP mount paths', () => {
  it('normalises the mount path and lists the routes to keep away from the JSON parser', () => {
    expect(normalizeMountPath('mcp/')).toBe('/mcp');
    expect(normalizeMountPath('/tools/host')).toBe('/tools/host');
    expect(mcpRoutes('/mcp/')).toEqual(['/mcp', '/mcp/{*rest}']);
    expect(() => normalizeMountPath('/')).toThrow(/mount path/);
    expect(() => normalizeMountPath('/a b')).toThrow(/mount path/);
  });
});
