import { json, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { UnsupportedMediaTypeException } from '@nestjs/common';

function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

export function isJsonMediaType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const type = contentType.split(';', 1)[0].trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

/** Every request body must be JSON: anything else is a 415 problem, never silently ignored. */
export function jsonOnly(req: Request, _res: Response, next: NextFunction): void {
  if (hasBody(req) && !isJsonMediaType(req.headers['content-type'])) {
    next(
      new UnsupportedMediaTypeException(
        'request bodies must be JSON (Content-Type: application/json)',
      ),
    );
    return;
  }
  next();
}

/**
 * The JSON body parser, bounded by SVC_MAX_BODY_BYTES. It runs as Nest middleware after the
 * request logger, so malformed and oversized bodies are logged with their request id too.
 */
export function jsonBody(maxBytes: number): RequestHandler {
  return json({ limit: maxBytes, type: (req) => isJsonMediaType(req.headers['content-type']) });
}
