import { describe, expect, it } from '@jest/globals';
import { LazyModule, importInTurn } from './lazy-module.js';

describe('LazyModule', () => {
  it('imports once, and answers get() only after a load', async () => {
    let imports = 0;
    const lazy = new LazyModule('thing', () => Promise.resolve({ n: ++imports }));
    expect(lazy.peek()).toBeUndefined();
    expect(() => lazy.get()).toThrow('thing is used before it was loaded');
    const [a, b] = await Promise.all([lazy.load(), lazy.load()]);
    expect(a).toBe(b);
    expect(lazy.get()).toBe(a);
    expect(lazy.peek()).toBe(a);
    expect(imports).toBe(1);
  });

  it('tries again after a failed import', async () => {
    let attempts = 0;
    const lazy = new LazyModule('flaky', () =>
      ++attempts === 1 ? Promise.reject(new Error('no')) : Promise.resolve('ok'),
    );
    await expect(lazy.load()).rejects.toThrow('no');
    await expect(lazy.load()).resolves.toBe('ok');
  });

  it('runs one import at a time, even after one failed', async () => {
    const order: string[] = [];
    let release!: () => void;
    const first = importInTurn(
      () =>
        new Promise<string>((resolve) => {
          order.push('first started');
          release = () => resolve('first');
        }),
    );
    const failing = importInTurn(() => {
      order.push('second started');
      return Promise.reject(new Error('second'));
    });
    const third = importInTurn(() => {
      order.push('third started');
      return Promise.resolve('third');
    });
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(order).toEqual(['first started']);
    release();
    await expect(first).resolves.toBe('first');
    await expect(failing).rejects.toThrow('second');
    await expect(third).resolves.toBe('third');
    expect(order).toEqual(['first started', 'second started', 'third started']);
  });
});
