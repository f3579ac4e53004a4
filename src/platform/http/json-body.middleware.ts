import { json, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { UnsupportedMediaTypeException } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { jsonTextTooDeep, tooDeep } from './json-depth.js';

function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

export function isJsonMediaType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const type = contentType.split(';', 1)[0].trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

/** A request whose exact body bytes were kept (see RAW_BODY_PATHS). */
export interface RawBodyRequest {
  rawBody?: Buffer;
}

/**
 * Routes that check a signature over the exact bytes of the body (the messaging webhook's
 * Slack-style HMAC): for these only, the parser keeps the bytes as `req.rawBody`.
 */
export const RAW_BODY_PATHS: ReadonlySet<string> = new Set(['/v1/messaging/webhook']);

function keepRawBody(
  req: IncomingMessage & RawBodyRequest & { originalUrl?: string },
  body: Buffer,
): void {
  // Express matches routes case-insensitively and with a trailing slash; so does this.
  const path = (req.originalUrl ?? req.url ?? '')
    .split('?', 1)[0]
    .replace(/\/+$/, '')
    .toLowerCase();
  if (RAW_BODY_PATHS.has(path)) req.rawBody = body;
}

/**
 * The request body: every body must be JSON (anything else is a 415 problem, never silently
 * ignored), parsed with bounds SVC_MAX_BODY_BYTES and SVC_MAX_JSON_DEPTH. The depth is read
 * from the bytes before they are parsed, so a body nested too deeply is a 400 `json-too-deep`
 * before anything can walk it. A request without a body passes at once. The app's request
 * pipeline mounts it after the request entry, so refused bodies are logged with their request id
 * too.
 */
export function jsonBody(maxBytes: number, maxDepth: number): RequestHandler {
  const parse = json({
    limit: maxBytes,
    type: () => true,
    verify: (req: IncomingMessage, _res: ServerResponse, body: Buffer) => {
      if (jsonTextTooDeep(body, maxDepth)) throw tooDeep(maxDepth);
      keepRawBody(req, body);
    },
  });
  return (req: Request, res: Response, next: NextFunction) => {
    const json = isJsonMediaType(req.headers['content-type']);
    // An empty JSON body still parses (to {}), as body-parser does.
    if (!hasBody(req))
      return json && req.headers['content-length'] === '0' ? parse(req, res, next) : next();
    if (!json) {
      return next(
        new UnsupportedMediaTypeException(
          'request bodies must be JSON (Content-Type: application/json)',
        ),
      );
    }
    parse(req, res, next);
  };
}
