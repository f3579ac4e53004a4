/**
 * Free text in a `text` column, stored so that it comes back exactly on both backends.
 * PostgreSQL's `text` cannot hold NUL (U+0000) at all, and node-postgres sends a lone UTF-16
 * surrogate as U+FFFD; sqlite keeps both. Text with either (or starting with the marker) is
 * stored as the marker followed by its JSON string form, which has neither; any other text,
 * which is nearly all of it, is stored as it is, so rows written before this encoding read the
 * same (the migration EncodeOutboxMarkerText encoded the old rows that started with the
 * marker). See docs/decisions.md, "State backend".
 */
export const ENCODED_TEXT_MARKER = '\uFDD0';

/** NUL, a lone surrogate, or the marker at the start. */
// eslint-disable-next-line no-control-regex -- NUL is exactly what this looks for
const NEEDS_ENCODING = /^\uFDD0|[\u0000\p{Cs}]/u;

export function encodeStoredText(text: string): string {
  return NEEDS_ENCODING.test(text) ? ENCODED_TEXT_MARKER + JSON.stringify(text) : text;
}

/**
 * The text `encodeStoredText` stored. A marked value that is not a JSON string was not written
 * by it (a replica of an older version during a rolling upgrade): it is returned as it is.
 */
export function decodeStoredText(stored: string): string {
  if (!stored.startsWith(ENCODED_TEXT_MARKER)) return stored;
  try {
    const decoded: unknown = JSON.parse(stored.slice(ENCODED_TEXT_MARKER.length));
    return typeof decoded === 'string' ? decoded : stored;
  } catch {
    return stored;
  }
}

/**
 * A diagnostic for a bounded `varchar` (an outbox row's last error): NUL and lone surrogates
 * become U+FFFD, which keeps its length, rather than growing it by encoding.
 */
export function storableDiagnostic(text: string): string {
  // eslint-disable-next-line no-control-regex -- NUL is exactly what this replaces
  return text.replace(/[\u0000\p{Cs}]/gu, '\uFFFD');
}
