import { describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { newRecordId } from './new-record-id.js';

describe('newRecordId', () => {
  it('makes unique version 7 UUIDs', () => {
    const ids = Array.from({ length: 2_000 }, () => newRecordId());
    for (const id of ids) {
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('makes ids that sort in the order of the milliseconds they were made in', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      ids.push(newRecordId());
      await sleep(2);
    }
    // B-tree keys that grow with time: new runs land on the index's last pages.
    expect([...ids].sort()).toEqual(ids);
  });
});
