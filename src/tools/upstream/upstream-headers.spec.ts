import { describe, expect, it } from '@jest/globals';
import { checkHeaders } from './upstream-headers.js';

describe('checkHeaders', () => {
  it('keeps well-formed headers', () => {
    expect(checkHeaders({ Authorization: 'Bearer abc', 'X-Team': 'blue\tgreen' })).toEqual({
      headers: { Authorization: 'Bearer abc', 'X-Team': 'blue\tgreen' },
      errors: [],
    });
  });

  it('refuses reserved, repeated, malformed and non-string headers without quoting values', () => {
    const { errors } = checkHeaders({
      'mcp-session-id': 'a',
      'X-Key': 'one',
      'x-key': 'two',
      'bad name': 'b',
      'X-Split': 'secret-value\r\nX-Evil: 1',
      'X-Number': 5,
    });
    expect(errors.map((error) => error.path)).toEqual([
      'headers.mcp-session-id',
      'headers.x-key',
      'headers.bad name',
      'headers.X-Split',
      'headers.X-Number',
    ]);
    expect(JSON.stringify(errors)).not.toContain('secret-value');
  });
});
