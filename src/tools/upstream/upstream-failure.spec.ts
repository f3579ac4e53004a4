import { beforeAll, describe, expect, it } from '@jest/globals';
import { ProtocolError, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { EgressRefusedError } from '../../platform/http/egress-agent.js';
import { mcpClientSdk } from '../mcp-sdk.js';
import { UPSTREAM_UNREACHABLE, classifyUpstreamFailure } from './upstream-failure.js';

// The errors come from a connected client: the SDK is loaded by then (../mcp-sdk.ts).
beforeAll(() => mcpClientSdk.load());

describe('classifyUpstreamFailure', () => {
  it("quotes a JSON-RPC error the server answered: that is the tool's answer", () => {
    expect(
      classifyUpstreamFailure(new ProtocolError(-32602, 'Tool x not found'), false, 1000),
    ).toEqual({
      kind: 'answered',
      detail: expect.stringMatching(
        /^upstream MCP server answered error -32602: .*Tool x not found/,
      ),
    });
  });

  it('is a timeout when our deadline or the SDK fired', () => {
    expect(classifyUpstreamFailure(new Error('aborted'), true, 1500)).toEqual({
      kind: 'timeout',
      detail: 'upstream MCP server did not answer within 1500 ms',
    });
    const sdk = new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out');
    expect(classifyUpstreamFailure(sdk, false, 1500).kind).toBe('timeout');
  });

  it('says only "unreachable" for a failed exchange, keeping the reason for the log', () => {
    const refused = Object.assign(new TypeError('fetch failed'), {
      cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
    });
    expect(classifyUpstreamFailure(refused, false, 1000)).toEqual({
      kind: 'unreachable',
      detail: UPSTREAM_UNREACHABLE,
      reason: 'ECONNREFUSED',
    });
    const policy = new TypeError('fetch failed', {
      cause: new EgressRefusedError({
        kind: 'forbidden',
        host: '169.254.169.254',
        what: 'cloud metadata',
        reason: '169.254.169.254 is a cloud metadata address',
      }),
    });
    expect(classifyUpstreamFailure(policy, false, 1000)).toMatchObject({
      detail: UPSTREAM_UNREACHABLE,
      reason: expect.stringContaining('refused by the egress policy'),
    });
  });
});
