import type { IncomingMessage } from 'node:http';
import { jsonTextTooDeep, valueTooDeep } from '../platform/http/json-depth.js';

export type BodyText =
  | { kind: 'text'; text: string }
  | { kind: 'parsed'; value: unknown }
  | { kind: 'too-large' }
  | { kind: 'not-utf8' }
  | { kind: 'too-deep' }
  | { kind: 'aborted' };

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The request body as text, at most `limit` bytes (SVC_MAX_BODY_BYTES) and nested at most
 * `maxDepth` levels (SVC_MAX_JSON_DEPTH, read from the bytes before anything parses them). A
 * declared or actual overflow stops reading at once; the caller answers 413 and closes the
 * connection rather than draining the rest. A body some upstream middleware already parsed is
 * handed on as is (its stream is spent and would never end), after the same depth check.
 */
export function readBody(
  req: IncomingMessage & { body?: unknown },
  limit: number,
  maxDepth: number,
): Promise<BodyText> {
  if (req.body !== undefined) {
    return Promise.resolve(
      valueTooDeep(req.body, maxDepth) ? { kind: 'too-deep' } : { kind: 'parsed', value: req.body },
    );
  }
  if (Number(req.headers['content-length']) > limit) return Promise.resolve({ kind: 'too-large' });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (result: BodyText) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onAbort);
      req.off('close', onAbort);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > limit) {
        req.pause();
        finish({ kind: 'too-large' });
      } else {
        chunks.push(chunk);
      }
    };
    const onEnd = () => {
      const bytes = Buffer.concat(chunks);
      if (jsonTextTooDeep(bytes, maxDepth)) {
        finish({ kind: 'too-deep' });
        return;
      }
      try {
        finish({ kind: 'text', text: UTF8.decode(bytes) });
      } catch {
        finish({ kind: 'not-utf8' });
      }
    };
    const onAbort = () => finish({ kind: 'aborted' });
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onAbort);
    req.on('close', onAbort);
  });
}
