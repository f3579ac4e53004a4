import { describe, expect, it } from '@jest/globals';
import { slackTenant, unmappedDetail } from './slack-tenant.js';

const tenants = new Map([
  ['T0ACME', 'acme'],
  ['E0GRID', 'grid'],
]);

describe('slackTenant', () => {
  it('maps a workspace by its team id, then by its enterprise id', () => {
    expect(slackTenant({ team: 'T0ACME' }, tenants, 'fallback')).toBe('acme');
    expect(slackTenant({ team: 'T0ACME', enterprise: 'E0GRID' }, tenants, undefined)).toBe('acme');
    expect(slackTenant({ team: 'T0WORKSPACE', enterprise: 'E0GRID' }, tenants, undefined)).toBe(
      'grid',
    );
  });

  it('gives an unmapped workspace no tenant, even with SVC_TENANT set', () => {
    expect(slackTenant({ team: 'T0OTHER' }, tenants, 'fallback')).toBeUndefined();
    expect(slackTenant({}, tenants, 'fallback')).toBeUndefined();
  });

  it('without a mapping, every workspace belongs to SVC_TENANT (or to none)', () => {
    expect(slackTenant({ team: 'T0ANY' }, undefined, 'fallback')).toBe('fallback');
    expect(slackTenant({ team: 'T0ANY' }, undefined, undefined)).toBeUndefined();
  });

  it('does not look up inherited names', () => {
    expect(slackTenant({ team: 'constructor' }, tenants, undefined)).toBeUndefined();
  });
});

describe('unmappedDetail', () => {
  it('names a well-formed workspace id, and nothing else a body carries', () => {
    expect(unmappedDetail({ team: 'T0OTHER' }, tenants)).toBe(
      'the Slack workspace T0OTHER is not mapped to a tenant (SVC_SLACK_TENANTS)',
    );
    expect(unmappedDetail({ team: '<script>' }, tenants)).toBe(
      'the Slack workspace is not mapped to a tenant (SVC_SLACK_TENANTS)',
    );
    expect(unmappedDetail({ team: 'T0' }, undefined)).toContain(
      'SVC_SLACK_TENANTS (or SVC_TENANT)',
    );
  });
});
