import { describe, expect, it } from '@jest/globals';
import {
  InvalidStateKeyError,
  assertLeaseKey,
  assertStateKey,
  identifierProblem,
  isSafeIdentifier,
} from './state-key.limits.js';

describe('identifiers', () => {
  it('refuses control characters (C0, DEL, C1) and lone surrogates', () => {
    for (const id of [
      'a\u0000b',
      'a\nb',
      'tab\t',
      '\u001b[31m',
      'del\u007f',
      'c1\u0085',
      'x\ud800',
      '\udc00',
    ]) {
      expect(isSafeIdentifier(id)).toBe(false);
    }
  });

  it('takes any other text, paired surrogates included', () => {
    for (const id of ['acme', 'run:1.2_3-4', 'ünïcödé', 'emoji 😀', 'space ok']) {
      expect(isSafeIdentifier(id)).toBe(true);
    }
  });

  it('names the rule an identifier breaks', () => {
    expect(identifierProblem('tenant_id', '', 128)).toBe(
      'tenant_id must be a string of 1 to 128 characters',
    );
    expect(identifierProblem('tenant_id', 'ta\u0000', 128)).toBe(
      'tenant_id must not contain control characters',
    );
    expect(identifierProblem('tenant_id', 'ta', 128)).toBeNull();
  });

  it('is checked before any state key or lease reaches the database', () => {
    expect(() => assertStateKey({ tenantId: 'ta', sessionId: 'run:a\u0000b', key: 'k' })).toThrow(
      new InvalidStateKeyError('session_id must not contain control characters'),
    );
    expect(() => assertLeaseKey('ta\u0000', 'run', 1000)).toThrow(InvalidStateKeyError);
    expect(() => assertStateKey({ tenantId: 'ta', sessionId: 's', key: 'k' })).not.toThrow();
  });
});
