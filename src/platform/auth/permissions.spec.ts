import { describe, expect, it } from '@jest/globals';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUILT_IN_ROLES, KNOWN_PERMISSIONS, isKnownGrant } from '../config/roles.js';
import { permits } from './permissions.js';

describe('permits', () => {
  it('matches exact permissions', () => {
    expect(permits(['runs:read'], 'runs:read')).toBe(true);
    expect(permits(['runs:read'], 'runs:write')).toBe(false);
  });

  it('lets x:* cover every x:… permission and nothing else', () => {
    expect(permits(['runs:*'], 'runs:write')).toBe(true);
    expect(permits(['runs:*'], 'runs:read:own')).toBe(true);
    expect(permits(['runs:*'], 'runsx:read')).toBe(false);
    expect(permits(['runs:*'], 'tools:call')).toBe(false);
  });

  it('lets * cover everything', () => {
    expect(permits(['*'], 'approve:*')).toBe(true);
    expect(permits(['*'], 'anything:at:all')).toBe(true);
  });

  it('requires approve:* itself (or *) to approve', () => {
    expect(permits(['approve:*'], 'approve:*')).toBe(true);
    expect(permits(['approve:run'], 'approve:*')).toBe(false);
    expect(permits([], 'approve:*')).toBe(false);
  });

  it('gives the built-in roles what the contract says', () => {
    const can = (role: string, permission: string) => permits(BUILT_IN_ROLES[role], permission);
    expect(can('admin', 'approve:*')).toBe(true);
    expect(can('operator', 'approve:*')).toBe(true);
    expect(can('operator', 'board:write')).toBe(true);
    expect(can('runner', 'approve:*')).toBe(false);
    expect(can('runner', 'tools:call')).toBe(true);
    expect(can('viewer', 'studio:read')).toBe(true);
    expect(can('viewer', 'runs:write')).toBe(false);
    expect(can('operator', 'messaging:read')).toBe(true);
    expect(can('runner', 'messaging:write')).toBe(true);
    expect(can('viewer', 'messaging:read')).toBe(true);
    expect(can('viewer', 'messaging:write')).toBe(false);
    expect(can('operator', 'usage:read')).toBe(true);
    expect(can('viewer', 'usage:read')).toBe(true);
    expect(can('runner', 'usage:read')).toBe(false);
    // Operators read the audit trail (of their tenant, when bound); viewers read the board.
    expect(can('operator', 'audit:read')).toBe(true);
    expect(can('runner', 'audit:read')).toBe(false);
    expect(can('viewer', 'audit:read')).toBe(false);
    expect(can('viewer', 'board:read')).toBe(true);
    expect(can('viewer', 'board:write')).toBe(false);
    // Lifting a tenant's budget is the admin's alone.
    expect(can('admin', 'budgets:write')).toBe(true);
    expect(can('operator', 'budgets:write')).toBe(false);
  });
});

describe('the permission catalog', () => {
  /** Every permission a route or tool of the gateway checks, read from the sources. */
  function checkedInSources(): Set<string> {
    const root = fileURLToPath(new URL('../..', import.meta.url));
    const found = new Set<string>();
    const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter(
      (file) => file.endsWith('.ts') && !file.endsWith('.spec.ts'),
    );
    for (const file of files) {
      const text = readFileSync(join(root, file), 'utf8');
      for (const [, args] of text.matchAll(/RequirePermissions\(([^)]*)\)/g)) {
        for (const [, permission] of args.matchAll(/'([^']+)'/g)) found.add(permission);
      }
      for (const [, permission] of text.matchAll(/permits\([^,()]+,\s*'([^']+)'\)/g)) {
        found.add(permission);
      }
    }
    return found;
  }

  it('lists exactly the permissions the gateway checks, so the keys file check knows them', () => {
    expect([...checkedInSources()].sort()).toEqual([...KNOWN_PERMISSIONS].sort());
  });

  it('tells a grant that can match something from a typo', () => {
    for (const grant of ['*', 'runs:*', 'runs:read', 'approve:*', 'metrics:read']) {
      expect({ grant, known: isKnownGrant(grant) }).toEqual({ grant, known: true });
    }
    for (const grant of ['tool:*', 'runs:raed', 'runs', 'runs:**', '', 'audit:*:x']) {
      expect({ grant, known: isKnownGrant(grant) }).toEqual({ grant, known: false });
    }
  });
});
