import type { Response } from 'express';
import type { RecordedAuditEvent } from './audit-event.js';
import { type AuditFilter, AuditSink } from './audit-sink.js';

/** Events read per query while exporting: memory stays bounded whatever the trail holds. */
export const EXPORT_PAGE = 500;

export const NDJSON_CONTENT_TYPE = 'application/x-ndjson';

/**
 * GET /v1/audit/export: every event the filter selects, newest first, one JSON object per line,
 * read page by page and written as the client takes them (back-pressure). The first page is
 * read before anything is sent, so a backend that is away is still a 503 problem; a failure
 * later can only cut the stream short (the response then ends without its last chunk). A
 * client that goes away stops the reading.
 */
export async function streamAuditExport(
  audit: AuditSink,
  filter: AuditFilter,
  res: Response,
): Promise<void> {
  let page = await audit.list({ ...filter, limit: EXPORT_PAGE });
  res.status(200);
  res.setHeader('Content-Type', NDJSON_CONTENT_TYPE);
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  try {
    while (page.length > 0 && !res.destroyed) {
      if (!res.write(lines(page))) await drained(res);
      if (page.length < EXPORT_PAGE) break;
      page = await audit.list({ ...filter, limit: EXPORT_PAGE, beforeId: page.at(-1)!.id });
    }
    if (!res.destroyed) res.end();
  } catch {
    // Headers are gone: the only way left to say it failed is not to end the body properly.
    res.destroy();
  }
}

/** Resolves when the client takes more, or is gone. */
function drained(res: Response): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

function lines(events: RecordedAuditEvent[]): string {
  return events.map((event) => `${JSON.stringify(event)}\n`).join('');
}
