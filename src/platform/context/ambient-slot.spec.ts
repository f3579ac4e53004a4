import { describe, expect, it } from '@jest/globals';
import { ROOT_CONTEXT, context, trace } from '@opentelemetry/api';
import { AmbientSlot } from './ambient-slot.js';

describe('AmbientSlot', () => {
  const depth = new AmbientSlot<number>('test.depth');
  const name = new AmbientSlot<string>('test.name');

  it('follows work across awaits and timers, and ends with it', async () => {
    expect(depth.get()).toBeUndefined();
    await depth.run(1, async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      expect(depth.get()).toBe(1);
      await Promise.resolve().then(() => expect(depth.get()).toBe(1));
    });
    expect(depth.get()).toBeUndefined();
  });

  it('keeps slots apart and nests', () => {
    depth.run(1, () =>
      name.run('a', () => {
        expect([depth.get(), name.get()]).toEqual([1, 'a']);
        depth.run(2, () => expect([depth.get(), name.get()]).toEqual([2, 'a']));
        expect(depth.get()).toBe(1);
      }),
    );
  });

  it('rides in the OpenTelemetry context beside the active span', () => {
    const span = trace.wrapSpanContext({
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      traceFlags: 1,
    });
    const entered = name.in(trace.setSpan(ROOT_CONTEXT, span), 'request');
    context.with(entered, () => {
      expect(name.get()).toBe('request');
      expect(trace.getActiveSpan()).toBe(span);
    });
  });
});
