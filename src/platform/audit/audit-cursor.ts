/**
 * `next_cursor` of GET /v1/audit: opaque to clients, it says where the page ended (the id of its
 * oldest event), so the next page starts right after it whatever arrived meanwhile.
 */
const PREFIX = 'a1.';

export function encodeAuditCursor(lastId: number): string {
  return Buffer.from(`${PREFIX}${lastId}`, 'utf8').toString('base64url');
}

/** The id a cursor names, or undefined for anything this gateway did not hand out. */
export function decodeAuditCursor(cursor: string): number | undefined {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(cursor)) return undefined;
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!text.startsWith(PREFIX)) return undefined;
  const digits = text.slice(PREFIX.length);
  if (!/^\d{1,15}$/.test(digits)) return undefined;
  return Number(digits);
}
