import type { Request, Response } from 'express';

/** What an EventSource waits before it reconnects, sent once at the start. */
const RECONNECT_MS = 2_000;

/** Whether the request asks for `text/event-stream` (its `Accept` names it). */
export function acceptsEventStream(request: Request): boolean {
  return /(^|,)\s*text\/event-stream\s*(;|,|$)/i.test(request.headers.accept ?? '');
}

/**
 * A `text/event-stream` response (the HTML standard's server-sent events): every event with
 * `id:` and `event:`, a comment every `heartbeatMs` while nothing else is sent so proxies and
 * load balancers keep an idle stream open, and `closed` aborting when the client goes away.
 * Writes wait for the socket to drain, so a slow client holds back only its own stream.
 */
export class EventStream {
  private readonly gone = new AbortController();
  private heartbeat?: NodeJS.Timeout;
  private lastWrite = Date.now();

  constructor(
    private readonly response: Response,
    private readonly heartbeatMs: number,
  ) {
    response.once('close', () => this.stop());
  }

  /** Aborts when the client closed the connection (or the stream ended). */
  get closed(): AbortSignal {
    return this.gone.signal;
  }

  /** Sends the status line and headers; events follow. */
  open(headers: Record<string, string> = {}): void {
    this.response.status(200);
    this.response.set({
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      // nginx would otherwise buffer the stream.
      'X-Accel-Buffering': 'no',
      ...headers,
    });
    this.response.flushHeaders();
    this.response.socket?.setNoDelay(true);
    this.response.write(`retry: ${RECONNECT_MS}\n\n`);
    this.heartbeat = setInterval(() => {
      if (Date.now() - this.lastWrite >= this.heartbeatMs / 2) void this.write(': ping\n\n');
    }, this.heartbeatMs);
    this.heartbeat.unref();
  }

  /**
   * One event; `data` is sent as one line of JSON. `id` null: an event outside the stream's
   * numbering (an error), which must not move the client's Last-Event-ID.
   */
  send(id: number | null, event: string, data: unknown): Promise<void> {
    const line = id === null ? '' : `id: ${id}\n`;
    return this.write(`${line}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  /** A bare `data:` event, neither numbered nor named (what OpenAI's streams send). */
  sendData(data: string): Promise<void> {
    return this.write(`data: ${data}\n\n`);
  }

  /** Ends the response (the client should not reconnect: the stream is complete). */
  end(): void {
    this.stop();
    if (!this.response.writableEnded) this.response.end();
  }

  private async write(chunk: string): Promise<void> {
    if (this.gone.signal.aborted || this.response.writableEnded) return;
    this.lastWrite = Date.now();
    if (this.response.write(chunk)) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        this.response.off('drain', done);
        this.gone.signal.removeEventListener('abort', done);
        resolve();
      };
      this.response.on('drain', done);
      this.gone.signal.addEventListener('abort', done, { once: true });
    });
  }

  private stop(): void {
    clearInterval(this.heartbeat);
    if (!this.gone.signal.aborted) this.gone.abort();
  }
}
