import {
  type IncomingHttpHeaders,
  type Server,
  type ServerResponse,
  createServer,
} from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

export interface MockReply {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Wait this long before answering (a slow or hanging model). */
  delayMs?: number;
  /**
   * When the request asks for `stream: true`: the body (a `completion(...)`) is sent as an
   * OpenAI stream, a chunk per word of its text and one per tool call, one every this many ms.
   */
  streamEveryMs?: number;
}

/** An OpenAI `completion(...)` body as the chunks of its stream (the last one has usage). */
export function streamChunks(body: ReturnType<typeof completion>): unknown[] {
  const choice = body.choices[0];
  const base = { id: body.id, object: 'chat.completion.chunk', model: body.model };
  const chunk = (delta: unknown, finish: string | null = null) => ({
    ...base,
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  const words = (choice.message.content ?? '').match(/\s*\S+\s*/g) ?? [];
  const calls = (choice.message.tool_calls ?? []).map((call, index) =>
    chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: call.function }] }),
  );
  return [
    chunk({ role: 'assistant', content: '' }),
    ...words.map((word) => chunk({ content: word })),
    ...calls,
    chunk({}, choice.finish_reason),
    { ...base, choices: [], usage: body.usage },
  ];
}

/** Decides the reply to the n-th request (0-based) since the last `reset`. */
export type MockScript = (request: SeenRequest, n: number) => MockReply;

/** An OpenAI chat-completions answer with text, or with tool calls whose arguments are JSON text. */
export function completion(
  content: string | null,
  toolCalls: Array<{ id: string; name: string; arguments: string }> = [],
) {
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    model: 'mock-model',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content,
          ...(toolCalls.length > 0
            ? {
                tool_calls: toolCalls.map((call) => ({
                  id: call.id,
                  type: 'function',
                  function: { name: call.name, arguments: call.arguments },
                })),
              }
            : {}),
        },
        finish_reason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
      },
    ],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  };
}

/** A local stand-in for an OpenAI-compatible model endpoint that records what it was sent. */
export class MockModel {
  readonly requests: SeenRequest[] = [];
  /** Epoch ms at which each streamed answer sent its last chunk. */
  readonly streamsEndedAt: number[] = [];
  private script: MockScript = (request) => ({
    body: completion(`echo: ${lastUserText(request)}`),
  });
  private server?: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const seen: SeenRequest = {
          path: req.url ?? '',
          headers: req.headers,
          body: JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<
            string,
            unknown
          >,
        };
        const n = this.requests.push(seen) - 1;
        const reply = this.script(seen, n);
        if (seen.body.stream === true && reply.streamEveryMs !== undefined) {
          this.stream(res, reply);
          return;
        }
        setTimeout(() => {
          if (res.destroyed) return;
          res.writeHead(reply.status ?? 200, {
            'Content-Type': 'application/json',
            ...reply.headers,
          });
          res.end(JSON.stringify(reply.body ?? {}));
        }, reply.delayMs ?? 0);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Sends the reply's body as an OpenAI stream, a chunk every `streamEveryMs`. */
  private stream(res: ServerResponse, reply: MockReply): void {
    const chunks = streamChunks(reply.body as ReturnType<typeof completion>);
    res.writeHead(200, { 'Content-Type': 'text/event-stream' });
    let next = 0;
    const timer = setInterval(() => {
      if (res.destroyed) return clearInterval(timer);
      if (next < chunks.length) {
        res.write(`data: ${JSON.stringify(chunks[next++])}\n\n`);
        return;
      }
      clearInterval(timer);
      this.streamsEndedAt.push(Date.now());
      res.end('data: [DONE]\n\n');
    }, reply.streamEveryMs);
  }

  /** Forget what was seen and answer with `script` from now on. */
  reset(script?: MockScript): void {
    this.requests.length = 0;
    if (script) this.script = script;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) =>
      this.server ? this.server.close(() => resolve()) : resolve(),
    );
  }
}

export function lastUserText(request: SeenRequest): string {
  const messages = (request.body.messages ?? []) as Array<{ role: string; content: string | null }>;
  return [...messages].reverse().find((m) => m.role === 'user')?.content ?? '';
}
