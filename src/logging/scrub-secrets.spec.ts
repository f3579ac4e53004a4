import { describe, expect, it } from '@jest/globals';
import { scrubSecrets } from './scrub-secrets.js';

describe('scrubSecrets', () => {
  it('removes credentials from connection URLs', () => {
    expect(scrubSecrets('connect postgres://svc:s3cret@db:5432/state failed')).toBe(
      'connect postgres://***@db:5432/state failed',
    );
    expect(scrubSecrets('https://token@example.com/x')).toBe('https://***@example.com/x');
  });

  it('removes bearer tokens', () => {
    expect(scrubSecrets('header was "Bearer abc.def-123", rejected')).toBe(
      'header was "Bearer ***", rejected',
    );
  });

  it('leaves text without secrets alone', () => {
    expect(scrubSecrets('ECONNREFUSED 127.0.0.1:5432')).toBe('ECONNREFUSED 127.0.0.1:5432');
  });
});
