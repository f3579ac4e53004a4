import type { LoggerService } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { ProblemException } from '../platform/http/problem.js';
import type { Dispatcher } from 'undici';
import { CallDeadline } from '../platform/http/call-deadline.js';
import { isEgressRefusal } from '../platform/http/egress-agent.js';
import { headerValue, operatorEgress } from '../platform/http/outbound.js';
import { undici } from '../platform/http/undici.js';
import { discardBody, readBoundedBody } from '../platform/http/bounded-body.js';
import { SecretScrubber, scrubJsonValue } from '../platform/logging/scrub-secrets.js';
import {
  describeNetworkError,
  providerFailed,
  providerTimeout,
  quoteUpstream,
} from './provider-errors.js';
import { MAX_ATTEMPTS, isRetryableStatus, parseRetryAfter, retryDelay } from './provider-retry.js';
import { SseDataReader } from '../platform/http/sse-data-reader.js';

/** What a streamed call accepts: events, or JSON from an endpoint that does not stream. */
const STREAM_ACCEPT = 'text/event-stream, application/json';

/** A successful answer larger than this is refused (502) rather than buffered. */
export const MAX_RESPONSE_BYTES = 10 * 1024 * 1024;
/** Error bodies are only read far enough to quote them. */
const ERROR_BODY_BYTES = 16 * 1024;

export type ProviderLogger = Pick<LoggerService, 'warn'>;

export interface ProviderHttpOptions {
  url: string;
  apiKey?: string;
  /** One deadline for a whole call, retries and backoff included. */
  timeoutMs: number;
  logger?: ProviderLogger;
}

interface AttemptFailure {
  ok: false;
  retryable: boolean;
  retryAfterMs?: number;
  /** `answered 500` or `is unreachable`: completes "the model endpoint …". */
  summary: string;
  /** Scrubbed, short upstream text (the body, or the socket error): for the log only. */
  quote: string;
}

type AttemptResult = { ok: true; value: unknown } | AttemptFailure;

/** What a streamed call answered: its events were passed on, or the endpoint sent JSON. */
export type StreamedAnswer = { streamed: true } | { streamed: false; value: unknown };

/** Raised inside an attempt once a stream has passed events on: it must not be retried. */
class StreamBroken extends Error {}

/**
 * POSTs JSON to a model endpoint with one overall deadline, bounded retries of 429/5xx and network
 * errors, over the `operatorEgress` keep-alive pools. Its errors say what happened in a few classified
 * words ("the model endpoint answered 401"), never what the endpoint wrote: an endpoint may echo
 * the credential in any spelling, and the detail reaches the tenant (problem body, run record,
 * studio, audit). What it wrote goes to the operator's log, scrubbed.
 */
export class ProviderHttpClient {
  private readonly headers: Record<string, string>;
  /** The credential in every spelling, for the quotes in log lines. */
  private readonly scrubber: SecretScrubber;

  constructor(private readonly options: ProviderHttpOptions) {
    this.headers = { 'content-type': 'application/json', accept: 'application/json' };
    if (options.apiKey) this.headers.authorization = `Bearer ${options.apiKey}`;
    this.scrubber = new SecretScrubber([options.apiKey]);
  }

  /** The parsed JSON body of a 2xx answer, or a 502/504 ProblemException. */
  async postJson(body: unknown, callerSignal?: AbortSignal): Promise<unknown> {
    const answer = await this.post(body, callerSignal);
    return answer.streamed ? undefined : answer.value;
  }

  /**
   * Like postJson, asking for `text/event-stream`: each event's data is handed to `onData` as it
   * arrives (the call resolves when the stream ends). An endpoint that answers JSON instead is
   * answered as by postJson. Failures are retried only before the first event was handed on;
   * after it, a broken stream is a 502 (what was passed on cannot be taken back).
   */
  postStream(
    body: unknown,
    onData: (data: string) => void,
    callerSignal?: AbortSignal,
  ): Promise<StreamedAnswer> {
    return this.post(body, callerSignal, onData);
  }

  private async post(
    body: unknown,
    callerSignal?: AbortSignal,
    onData?: (data: string) => void,
  ): Promise<StreamedAnswer> {
    const { timeoutMs } = this.options;
    const deadline = Date.now() + timeoutMs;
    const call = new CallDeadline(timeoutMs, callerSignal);
    const { signal } = call;
    const payload = JSON.stringify(body);
    let last: AttemptFailure | undefined;
    let attempts = 0;
    try {
      for (;;) {
        attempts += 1;
        const result = await this.attempt(payload, signal, onData);
        if (result.ok) return result.value as StreamedAnswer;
        last = result;
        const wait = retryDelay(attempts, result.retryAfterMs);
        // A wait that would outlast the deadline cannot help: report the failure now.
        if (!result.retryable || attempts >= MAX_ATTEMPTS || Date.now() + wait >= deadline) {
          this.log(`model endpoint attempt ${attempts} ${result.summary}; giving up`, result.quote);
          throw failureProblem(result, attempts);
        }
        this.log(
          `model endpoint attempt ${attempts} ${result.summary}; retrying in ${wait} ms`,
          result.quote,
        );
        await sleep(wait, undefined, { signal });
      }
    } catch (error) {
      if (error instanceof ProblemException) throw error;
      if (callerSignal?.aborted) throw callerSignal.reason;
      if (call.timedOut) {
        const tried = last ? ` (${attempts} attempts; last one ${last.summary})` : '';
        throw providerTimeout(`the model endpoint did not answer within ${timeoutMs} ms${tried}`);
      }
      throw error;
    } finally {
      call.end();
    }
  }

  /** A warning with the upstream's words (already scrubbed) for the operator. */
  private log(message: string, quote: string): void {
    this.options.logger?.warn(quote ? `${message} (upstream: ${quote})` : message);
  }

  private async attempt(
    payload: string,
    signal: AbortSignal,
    onData?: (data: string) => void,
  ): Promise<AttemptResult> {
    const { url } = this.options;
    try {
      // Redirects are not followed: the credential must not travel to another address.
      const { request } = undici.peek() ?? (await undici.load());
      const response = await request(url, {
        method: 'POST',
        headers: onData ? { ...this.headers, accept: STREAM_ACCEPT } : this.headers,
        body: payload,
        signal,
        dispatcher: await operatorEgress(),
      });
      const status = response.statusCode;
      if (status >= 200 && status < 300) {
        const type = headerValue(response, 'content-type') ?? '';
        if (onData && /^text\/event-stream/i.test(type)) {
          await this.readStream(response, onData);
          return { ok: true, value: { streamed: true } };
        }
        return { ok: true, value: { streamed: false, value: await this.readJson(response) } };
      }
      const { text } = await readBoundedBody(response, ERROR_BODY_BYTES);
      return {
        ok: false,
        retryable: isRetryableStatus(status),
        retryAfterMs: parseRetryAfter(headerValue(response, 'retry-after')),
        summary: `answered ${status}`,
        quote: quoteUpstream(text, this.scrubber),
      };
    } catch (error) {
      if (signal.aborted || error instanceof ProblemException) throw error;
      const quote = quoteUpstream(describeNetworkError(error), this.scrubber);
      if (error instanceof StreamBroken) {
        this.log('the model endpoint broke off its stream', quote);
        throw providerFailed('the model endpoint broke off its streamed answer');
      }
      if (isEgressRefusal(error)) {
        return { ok: false, retryable: false, summary: 'is refused by the egress policy', quote };
      }
      return { ok: false, retryable: true, summary: 'is unreachable', quote };
    }
  }

  /**
   * Hands each event's data to `onData` as it arrives, within MAX_RESPONSE_BYTES in all. The
   * credential is removed from every piece it appears in whole (a piece cannot be recalled).
   */
  private async readStream(
    response: Dispatcher.ResponseData,
    onData: (data: string) => void,
  ): Promise<void> {
    const reader = new SseDataReader();
    const decoder = new TextDecoder();
    let size = 0;
    let passed = false;
    const pass = (payloads: string[]) => {
      for (const data of payloads) {
        passed = true;
        onData(this.scrubber.holds(data) ? this.scrubber.scrubKnown(data) : data);
      }
    };
    try {
      for await (const chunk of response.body) {
        const bytes = chunk as Buffer;
        size += bytes.byteLength;
        if (size > MAX_RESPONSE_BYTES) {
          discardBody(response.body);
          throw providerFailed(
            `the model endpoint's streamed answer is larger than ${MAX_RESPONSE_BYTES} bytes`,
          );
        }
        pass(reader.push(decoder.decode(bytes, { stream: true })));
      }
      pass(reader.end());
    } catch (error) {
      if (error instanceof ProblemException || !passed) throw error;
      throw new StreamBroken(describeNetworkError(error));
    }
  }

  private async readJson(response: Dispatcher.ResponseData): Promise<unknown> {
    const { text, truncated } = await readBoundedBody(response, MAX_RESPONSE_BYTES);
    if (truncated) {
      throw providerFailed(
        `the model endpoint's answer is larger than ${MAX_RESPONSE_BYTES} bytes`,
      );
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.log("the model endpoint's answer is not JSON", quoteUpstream(text, this.scrubber));
      throw providerFailed(`the model endpoint's answer is not JSON`);
    }
    return this.withoutCredential(text, value);
  }

  /**
   * An answer that echoes the credential must not carry it into the run's text, messages or
   * tool calls. The raw text is searched first (its spellings include JSON-escaped ones); a
   * `\u` escape could hide one, so such answers are searched string by string.
   */
  private withoutCredential(text: string, value: unknown): unknown {
    if (!this.scrubber.holds(text) && !text.includes('\\u')) return value;
    let removed = false;
    const scrubbed = scrubJsonValue(value, (piece) => {
      const clean = this.scrubber.scrubKnown(piece);
      removed ||= clean !== piece;
      return clean;
    });
    if (!removed) return value;
    this.options.logger?.warn('the model endpoint echoed the credential in an answer; removed it');
    return scrubbed;
  }
}

function failureProblem(failure: AttemptFailure, attempts: number): ProblemException {
  const after = attempts > 1 ? ` after ${attempts} attempts` : '';
  return providerFailed(`the model endpoint ${failure.summary}${after}`);
}
