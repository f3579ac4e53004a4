import type { JsonValue } from '../../platform/state/state-store.js';

/**
 * A tenant's registered resource as stored: a fixed document at `uri`, or a family of them at
 * `uriTemplate` (RFC 6570) whose text fills `{variable}` placeholders from the URI read.
 * Exactly one of `text` and `blob` (base64).
 */
export interface StoredResource {
  uri?: string;
  uriTemplate?: string;
  title?: string;
  description?: string;
  mimeType?: string;
  text?: string;
  blob?: string;
  [key: string]: JsonValue | undefined;
}

export const MAX_URI = 2048;
/** Bytes of one resource's text or base64. */
export const MAX_RESOURCE_CONTENT = 1024 * 1024;
