import { type IncomingHttpHeaders, type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One POST the stand-in received, with what it answered. */
export interface ChatCall {
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
  /** Epoch ms when it arrived. */
  at: number;
  status: number;
}

export interface ChatReply {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
}

/** The reply to the n-th call (0-based) on one path. */
export type ChatScript = (n: number, body: unknown) => ChatReply;

export const SLACK_PATH = '/services/T000/B000/slack-secret-token';
export const TEAMS_PATH = '/webhookb2/teams-secret-token';

/**
 * A local stand-in for Slack's and Teams' incoming webhooks: records every POST and answers
 * 200 `ok` unless a path is scripted otherwise (`script(SLACK_PATH, (n) => …)`).
 */
export class ChatServer {
  readonly calls: ChatCall[] = [];
  private readonly scripts = new Map<string, ChatScript>();
  private server?: Server;
  url = '';

  get slackUrl(): string {
    return `${this.url}${SLACK_PATH}`;
  }

  get teamsUrl(): string {
    return `${this.url}${TEAMS_PATH}`;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const path = req.url ?? '/';
        const text = Buffer.concat(chunks).toString('utf8');
        const body: unknown = text ? JSON.parse(text) : undefined;
        const n = this.calls.filter((call) => call.path === path).length;
        const reply = this.scripts.get(path)?.(n, body) ?? {};
        const status = reply.status ?? 200;
        this.calls.push({ path, headers: req.headers, body, at: Date.now(), status });
        res.writeHead(status, { 'content-type': 'text/plain', ...reply.headers });
        res.end(reply.body ?? (status < 300 ? 'ok' : 'error'));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** Answer calls on `path` with `script` from now on (its n counts every call on the path). */
  script(path: string, script: ChatScript): void {
    this.scripts.set(path, script);
  }

  /** Forget the calls seen and every script. */
  reset(): void {
    this.calls.length = 0;
    this.scripts.clear();
  }

  /** Calls on `path` (optionally only those answered 2xx) whose body matches `filter`. */
  received(path: string, filter: (body: unknown) => boolean = () => true, delivered = false) {
    return this.calls.filter(
      (call) => call.path === path && filter(call.body) && (!delivered || call.status < 300),
    );
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) =>
      this.server ? this.server.close(() => resolve()) : resolve(),
    );
  }
}

/** Polls `check` until it returns true; fails after `timeoutMs` (generous: these are e2e tests). */
export async function waitUntil(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The text a Slack message or a Teams Adaptive Card carried. */
export function messageText(body: unknown): string | undefined {
  const message = body as {
    text?: string;
    attachments?: Array<{ content?: { body?: Array<{ text?: string }> } }>;
  };
  return message?.text ?? message?.attachments?.[0]?.content?.body?.[0]?.text;
}
