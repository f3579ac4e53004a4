import { beforeAll, describe, expect, it } from '@jest/globals';
import { checkOutput } from './output-schema.check.js';
import { SchemaValidator } from './schema-validator.js';
import { mcpServerSdk } from './mcp-sdk.js';

const validate = new SchemaValidator().cached('output-check-spec', {
  type: 'object',
  properties: { total: { type: 'number' } },
  required: ['total'],
});
const check = (result: Parameters<typeof checkOutput>[0]['result'], isError = false) =>
  checkOutput({ result, isError }, 'order_total', validate);

// Callers load the MCP SDK first (readyToRead; the MCP host loads it for itself).
beforeAll(() => mcpServerSdk.load());

describe('checkOutput', () => {
  it('passes an object answer that matches, plain or as MCP structuredContent', () => {
    expect(check({ total: 3 })).toEqual({ result: { total: 3 }, isError: false });
    const mcp = { content: [{ type: 'text', text: '3' }], structuredContent: { total: 3 } };
    expect(check(mcp)).toEqual({ result: mcp, isError: false });
  });

  it('turns a mismatch into a tool error naming the field', () => {
    const { result, isError } = check({ total: 'three' });
    expect(isError).toBe(true);
    expect(result).toMatch(/^tool "order_total" answered a result that does not match/);
    expect(result).toMatch(/total must be number/);
    expect(check('3')).toMatchObject({ isError: true, result: expect.stringMatching(/object/) });
    const noStructured = check({ content: [{ type: 'text', text: '3' }] });
    expect(noStructured.isError).toBe(true);
  });

  it('checks a plain answer with a data member named content as the data it is', () => {
    expect(check({ total: 3, content: ['line 1', 'line 2'] }).isError).toBe(false);
    expect(check({ content: [], structuredContent: { total: 1 } }).isError).toBe(true);
  });

  it("leaves error answers alone, the tool's own text included", () => {
    expect(check({ is_error: true, message: 'no such order' }, true)).toEqual({
      result: { is_error: true, message: 'no such order' },
      isError: true,
    });
    const failed = { content: [{ type: 'text', text: 'no such order' }], isError: true };
    expect(check(failed)).toEqual({ result: failed, isError: false });
  });
});
