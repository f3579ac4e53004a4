import type { LoggerService } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { ProblemException } from '../http/problem.js';
import { type Dispatcher, request } from 'undici';
import { headerValue, operatorEgress } from '../http/outbound.js';
import { readBoundedBody } from '../http/bounded-body.js';
import {
  describeNetworkError,
  providerFailed,
  providerTimeout,
  quoteUpstream,
} from './provider-errors.js';
import { MAX_ATTEMPTS, isRetryableStatus, parseRetryAfter, retryDelay } from './provider-retry.js';

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
  /** No HTTP answer at all: the quote is the socket error, worth a log line. */
  network: boolean;
  /** Redacted, short upstream text. */
  quote: string;
}

type AttemptResult = { ok: true; value: unknown } | AttemptFailure;

/**
 * POSTs JSON to a model endpoint with one overall deadline, bounded retries of 429/5xx and network
 * errors, and errors that never carry the credential, over the `outbound` keep-alive pools.
 */
export class ProviderHttpClient {
  private readonly headers: Record<string, string>;

  constructor(private readonly options: ProviderHttpOptions) {
    this.headers = { 'content-type': 'application/json', accept: 'application/json' };
    if (options.apiKey) this.headers.authorization = `Bearer ${options.apiKey}`;
  }

  /** The parsed JSON body of a 2xx answer, or a 502/504 ProblemException. */
  async postJson(body: unknown, callerSignal?: AbortSignal): Promise<unknown> {
    const { timeoutMs } = this.options;
    const deadline = Date.now() + timeoutMs;
    const timer = AbortSignal.timeout(timeoutMs);
    const signal = callerSignal ? AbortSignal.any([timer, callerSignal]) : timer;
    const payload = JSON.stringify(body);
    let last: AttemptFailure | undefined;
    let attempts = 0;
    try {
      for (;;) {
        attempts += 1;
        const result = await this.attempt(payload, signal);
        if (result.ok) return result.value;
        last = result;
        const wait = retryDelay(attempts, result.retryAfterMs);
        // A wait that would outlast the deadline cannot help: report the failure now.
        if (!result.retryable || attempts >= MAX_ATTEMPTS || Date.now() + wait >= deadline) {
          throw failureProblem(result, attempts);
        }
        const cause = result.network ? ` (${result.quote})` : '';
        this.options.logger?.warn(
          `model endpoint attempt ${attempts} ${result.summary}${cause}; retrying in ${wait} ms`,
        );
        await sleep(wait, undefined, { signal });
      }
    } catch (error) {
      if (error instanceof ProblemException) throw error;
      if (callerSignal?.aborted) throw callerSignal.reason;
      if (timer.aborted) {
        const tried = last ? ` (${attempts} attempts; last one ${last.summary})` : '';
        throw providerTimeout(`the model endpoint did not answer within ${timeoutMs} ms${tried}`);
      }
      throw error;
    }
  }

  private async attempt(payload: string, signal: AbortSignal): Promise<AttemptResult> {
    const { url, apiKey } = this.options;
    try {
      // Redirects are not followed: the credential must not travel to another address.
      const response = await request(url, {
        method: 'POST',
        headers: this.headers,
        body: payload,
        signal,
        dispatcher: operatorEgress,
      });
      const status = response.statusCode;
      if (status >= 200 && status < 300) {
        return { ok: true, value: await this.readJson(response) };
      }
      const { text } = await readBoundedBody(response, ERROR_BODY_BYTES);
      return {
        ok: false,
        retryable: isRetryableStatus(status),
        retryAfterMs: parseRetryAfter(headerValue(response, 'retry-after')),
        summary: `answered ${status}`,
        quote: quoteUpstream(text, apiKey),
        network: false,
      };
    } catch (error) {
      if (signal.aborted || error instanceof ProblemException) throw error;
      const quote = quoteUpstream(describeNetworkError(error), apiKey);
      return { ok: false, retryable: true, summary: 'is unreachable', quote, network: true };
    }
  }

  private async readJson(response: Dispatcher.ResponseData): Promise<unknown> {
    const { text, truncated } = await readBoundedBody(response, MAX_RESPONSE_BYTES);
    if (truncated) {
      throw providerFailed(
        `the model endpoint's answer is larger than ${MAX_RESPONSE_BYTES} bytes`,
      );
    }
    try {
      return JSON.parse(text) as unknown;
    } catch {
      const quote = quoteUpstream(text, this.options.apiKey);
      throw providerFailed(`the model endpoint's answer is not JSON: ${quote || '(empty body)'}`);
    }
  }
}

function failureProblem(failure: AttemptFailure, attempts: number): ProblemException {
  const after = attempts > 1 ? ` after ${attempts} attempts` : '';
  const quote = failure.quote ? `: ${failure.quote}` : '';
  return providerFailed(`the model endpoint ${failure.summary}${after}${quote}`);
}
