import { describe, expect, it } from '@jest/globals';
import { BUILT_IN_ROLES, permits } from './permissions.js';

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
  });
});
