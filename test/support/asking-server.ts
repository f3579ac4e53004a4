import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type CallToolRequest,
  type CallToolResult,
  type InputRequest,
  type InputRequiredResult,
  type ServerContext,
  type Tool,
  Server,
  createMcpHandler,
  inputRequired,
  inputResponse,
} from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';

/**
 * An upstream MCP server whose tools ask the client for input: the conformance suite's
 * sampling and elicitation tools (`test_sampling`, `test_elicitation`, and the SEP-1034 and
 * SEP-1330 schemas), `test_roots`, and `test_two_rounds` (two elicitations, the first answer
 * carried in `requestState`), and `test_logging` (three log messages during the call). Written the 2026-07-28 way (SDK v2, `input_required` results;
 * 2026-07-28 only), so the gateway reaches it in that revision; whatever revision the
 * gateway's own client speaks, the questions reach that client through the gateway.
 */
export interface AskingServer {
  url: string;
  /** How many `tools/call` requests arrived (each retry with answers is one). */
  calls(): number;
  /** How many clients connected (`server/discover` requests). */
  connections(): number;
  close(): Promise<void>;
}

const text = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] });
const ask = (inputRequests: { [key: string]: InputRequest }, requestState?: string) =>
  inputRequired({ inputRequests, ...(requestState !== undefined && { requestState }) });

const USER_SCHEMA = {
  type: 'object' as const,
  properties: {
    username: { type: 'string' as const, description: "User's response" },
    email: { type: 'string' as const, description: "User's email address" },
  },
  required: ['username', 'email'],
};

const DEFAULTS_SCHEMA = {
  type: 'object' as const,
  properties: {
    name: { type: 'string' as const, description: 'User name', default: 'John Doe' },
    age: { type: 'integer' as const, description: 'User age', default: 30 },
    score: { type: 'number' as const, description: 'User score', default: 95.5 },
    status: {
      type: 'string' as const,
      description: 'User status',
      enum: ['active', 'inactive', 'pending'],
      default: 'active',
    },
    verified: { type: 'boolean' as const, description: 'Verification status', default: true },
  },
  required: [],
};

const ENUMS_SCHEMA = {
  type: 'object' as const,
  properties: {
    untitledSingle: { type: 'string' as const, enum: ['option1', 'option2', 'option3'] },
    titledSingle: {
      type: 'string' as const,
      oneOf: [
        { const: 'value1', title: 'First Option' },
        { const: 'value2', title: 'Second Option' },
        { const: 'value3', title: 'Third Option' },
      ],
    },
    legacyEnum: {
      type: 'string' as const,
      enum: ['opt1', 'opt2', 'opt3'],
      enumNames: ['Option One', 'Option Two', 'Option Three'],
    },
    untitledMulti: {
      type: 'array' as const,
      items: { type: 'string' as const, enum: ['option1', 'option2', 'option3'] },
    },
    titledMulti: {
      type: 'array' as const,
      items: {
        anyOf: [
          { const: 'value1', title: 'First Choice' },
          { const: 'value2', title: 'Second Choice' },
          { const: 'value3', title: 'Third Choice' },
        ],
      },
    },
  },
  required: [],
};

const NO_ARGUMENTS = { type: 'object' as const, properties: {} };
const TOOLS: Tool[] = [
  {
    name: 'test_sampling',
    description: 'Asks the client to sample an LLM',
    inputSchema: {
      type: 'object' as const,
      properties: { prompt: { type: 'string' } },
      required: ['prompt'],
    },
  },
  {
    name: 'test_elicitation',
    description: 'Asks the user for a name and an email',
    inputSchema: {
      type: 'object' as const,
      properties: { message: { type: 'string' } },
      required: ['message'],
    },
  },
  {
    name: 'test_elicitation_sep1034_defaults',
    description: 'Elicitation with defaults',
    inputSchema: NO_ARGUMENTS,
  },
  {
    name: 'test_elicitation_sep1330_enums',
    description: 'Elicitation with enums',
    inputSchema: NO_ARGUMENTS,
  },
  { name: 'test_roots', description: "Lists the client's roots", inputSchema: NO_ARGUMENTS },
  { name: 'test_two_rounds', description: 'Asks twice', inputSchema: NO_ARGUMENTS },
  {
    name: 'test_logging',
    description: 'Logs while it works (debug, info, warning)',
    inputSchema: NO_ARGUMENTS,
  },
];

type Answer = CallToolResult | InputRequiredResult;

/** Ask with one elicitation; once answered, say what came back. */
function elicitOnce(ctx: ServerContext, message: string, schema: object, say: string): Answer {
  const answer = inputResponse(ctx.mcpReq.inputResponses, 'form');
  if (answer.kind === 'elicit') {
    return text(`${say}: action=${answer.action}, content=${JSON.stringify(answer.content)}`);
  }
  return ask({
    form: inputRequired.elicit({
      message,
      requestedSchema: schema as Parameters<typeof inputRequired.elicit>[0]['requestedSchema'],
    }),
  });
}

async function call(request: CallToolRequest, ctx: ServerContext): Promise<Answer> {
  const args = request.params.arguments ?? {};
  const responses = ctx.mcpReq.inputResponses;
  switch (request.params.name) {
    case 'test_sampling': {
      const answer = inputResponse(responses, 'sample');
      if (answer.kind === 'sampling') {
        const content = answer.result.content;
        const said = !Array.isArray(content) && content.type === 'text' ? content.text : '?';
        return text(`LLM response: ${said}`);
      }
      const prompt = String(args.prompt);
      return ask({
        sample: inputRequired.createMessage({
          messages: [{ role: 'user', content: { type: 'text', text: prompt } }],
          maxTokens: 100,
        }),
      });
    }
    case 'test_elicitation':
      return elicitOnce(ctx, String(args.message), USER_SCHEMA, 'User response');
    case 'test_elicitation_sep1034_defaults':
      return elicitOnce(
        ctx,
        'Test client default value handling - please accept with defaults',
        DEFAULTS_SCHEMA,
        'Elicitation completed',
      );
    case 'test_elicitation_sep1330_enums':
      return elicitOnce(ctx, 'Pick some options', ENUMS_SCHEMA, 'Elicitation completed');
    case 'test_roots': {
      const answer = inputResponse(responses, 'roots');
      if (answer.kind === 'roots')
        return text(`roots: ${answer.roots.map((r) => r.uri).join(',')}`);
      return ask({ roots: inputRequired.listRoots() });
    }
    case 'test_two_rounds': {
      const state = ctx.mcpReq.requestState<string>();
      const answer = inputResponse(responses, 'form');
      const name = { type: 'object' as const, properties: { name: { type: 'string' as const } } };
      if (state === undefined || answer.kind !== 'elicit') {
        return ask(
          { form: inputRequired.elicit({ message: 'first?', requestedSchema: name }) },
          'round-1',
        );
      }
      if (state === 'round-1') {
        const first = String(answer.content?.name);
        return ask(
          { form: inputRequired.elicit({ message: 'second?', requestedSchema: name }) },
          `round-2:${first}`,
        );
      }
      return text(
        `first=${state.slice('round-2:'.length)}, second=${String(answer.content?.name)}`,
      );
    }
    case 'test_logging':
      for (const level of ['debug', 'info', 'warning'] as const) {
        await ctx.mcpReq.log(level, `${level} from the upstream`, 'asking');
      }
      return text('logged');
    default:
      return { content: [{ type: 'text', text: 'no such tool' }], isError: true };
  }
}

export async function startAskingServer(): Promise<AskingServer> {
  let calls = 0;
  let discovers = 0;
  const handler = createMcpHandler(
    () => {
      const server = new Server(
        { name: 'asking-upstream', version: '1.0.0' },
        { capabilities: { tools: {}, logging: {} } },
      );
      server.setRequestHandler('tools/list', () => ({ tools: TOOLS }));
      server.setRequestHandler('tools/call', (request, ctx) => {
        calls += 1;
        return call(request, ctx);
      });
      return server;
    },
    { legacy: 'reject' },
  );
  const node = toNodeHandler(handler);
  const http = createServer((req, res) => {
    if (req.headers['mcp-method'] === 'server/discover') discovers += 1;
    void node(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    calls: () => calls,
    connections: () => discovers,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
