import { describe, expect, it } from '@jest/globals';
import type { Request } from 'express';
import { presentedKey, requestedTenants } from './request-credentials.js';

const req = (parts: {
  headers?: Record<string, string>;
  body?: unknown;
  query?: Record<string, unknown>;
}) =>
  ({
    headers: parts.headers ?? {},
    body: parts.body,
    query: parts.query ?? {},
  }) as unknown as Request;

describe('presentedKey', () => {
  it('reads a Bearer token in any case, or X-API-Key', () => {
    expect(presentedKey(req({ headers: { authorization: 'Bearer abc' } }))).toBe('abc');
    expect(presentedKey(req({ headers: { authorization: 'bearer   abc ' } }))).toBe('abc');
    expect(presentedKey(req({ headers: { 'x-api-key': 'xyz' } }))).toBe('xyz');
  });

  it('ignores other schemes and empty values', () => {
    expect(presentedKey(req({ headers: { authorization: 'Basic abc' } }))).toBeUndefined();
    expect(presentedKey(req({ headers: { 'x-api-key': '' } }))).toBeUndefined();
    expect(presentedKey(req({}))).toBeUndefined();
  });
});

describe('requestedTenants', () => {
  it('collects tenant_id from body, query and X-Tenant-Id', () => {
    expect(
      requestedTenants(
        req({
          body: { tenant_id: 'a' },
          query: { tenant_id: ['b', 'c'] },
          headers: { 'x-tenant-id': 'd' },
        }),
      ),
    ).toEqual(['a', 'b', 'c', 'd']);
  });

  it('ignores bodies that are not objects and non-string values', () => {
    expect(requestedTenants(req({ body: [{ tenant_id: 'a' }] }))).toEqual([]);
    expect(requestedTenants(req({ body: { tenant_id: 42 } }))).toEqual([]);
  });
});
