import { Injectable, type OnModuleInit } from '@nestjs/common';
import { WireErrors } from '../platform/http/wire-errors.js';
import { toOpenAiError } from './openai-error.js';

/**
 * The paths OpenAI's clients call: this wire's routes and the rest of OpenAI's API under `/v1`
 * (the gateway serves none of the others, and says so in OpenAI's shape). No route of the
 * gateway's own REST API starts with one of these names.
 */
const OPENAI_PATH =
  /^\/v1\/(chat|completions|embeddings|models|responses|moderations|images|audio|files|uploads|batches|fine_tuning|assistants|threads|vector_stores|realtime|evals|containers|conversations)(\/|$)/i;

/**
 * Every error on OpenAI's paths, the guard's 401/403/429, a malformed or oversized body and an
 * unknown sub-path included, as OpenAI's error object with the problem's status and headers
 * (`WWW-Authenticate`, `Retry-After`): what an OpenAI SDK client reads as an `APIError`. A
 * stream that already started reports its error as a last `data:` event (CompletionStreams).
 */
@Injectable()
export class OpenAiWireErrors implements OnModuleInit {
  constructor(private readonly wires: WireErrors) {}

  onModuleInit(): void {
    this.wires.register(
      (_method, path) => OPENAI_PATH.test(path),
      ({ body, members, headers }, _req, res) => {
        res.status(body.status).set(headers).json(toOpenAiError(body, members));
      },
    );
  }
}
