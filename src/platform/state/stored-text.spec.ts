import { describe, expect, it } from '@jest/globals';
import {
  ENCODED_TEXT_MARKER,
  decodeStoredText,
  encodeStoredText,
  storableDiagnostic,
} from './stored-text.js';

describe('stored text', () => {
  it('stores ordinary text as it is, so rows written before read the same', () => {
    for (const text of ['', 'hello', 'tab\tand\nnewline', 'ünïcödé ☃ 😀', '"quoted" \\ {}']) {
      expect(encodeStoredText(text)).toBe(text);
      expect(decodeStoredText(text)).toBe(text);
    }
  });

  it('encodes what PostgreSQL cannot hold, and text starting with the marker, reversibly', () => {
    const texts = [
      'a\u0000b',
      '\u0000',
      'x\ud800y',
      'lone low \udc00',
      `${ENCODED_TEXT_MARKER}"looks encoded"`,
      ENCODED_TEXT_MARKER,
    ];
    for (const text of texts) {
      const stored = encodeStoredText(text);
      expect(stored.startsWith(ENCODED_TEXT_MARKER)).toBe(true);
      // eslint-disable-next-line no-control-regex -- NUL is what PostgreSQL cannot hold
      expect(stored).not.toMatch(/[\u0000\p{Cs}]/u);
      expect(decodeStoredText(stored)).toBe(text);
    }
  });

  it('returns a marked value it did not write as it is', () => {
    expect(decodeStoredText(`${ENCODED_TEXT_MARKER}not json`)).toBe(
      `${ENCODED_TEXT_MARKER}not json`,
    );
    expect(decodeStoredText(`${ENCODED_TEXT_MARKER}42`)).toBe(`${ENCODED_TEXT_MARKER}42`);
  });

  it('makes a diagnostic storable without growing it', () => {
    expect(storableDiagnostic('a\u0000b\ud800')).toBe('a\ufffdb\ufffd');
    expect(storableDiagnostic('fine 😀')).toBe('fine 😀');
  });
});
