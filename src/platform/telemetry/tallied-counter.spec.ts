import { describe, expect, it } from '@jest/globals';
import { DataPointType, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { TalliedCounter } from './tallied-counter.js';

/** A reader collected on demand. */
class OnDemandReader extends MetricReader {
  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

async function sums(reader: MetricReader): Promise<unknown> {
  const { resourceMetrics } = await reader.collect();
  const metric = resourceMetrics.scopeMetrics[0]?.metrics[0];
  if (!metric) return null;
  return {
    name: metric.descriptor.name,
    type: metric.dataPointType,
    monotonic: metric.dataPointType === DataPointType.SUM && metric.isMonotonic,
    points: metric.dataPoints.map(({ attributes, value }) => ({ attributes, value })),
  };
}

describe('TalliedCounter', () => {
  it('reports each label set as a monotonic sum that keeps growing across collections', async () => {
    const reader = new OnDemandReader();
    const provider = new MeterProvider({ readers: [reader] });
    const counter = new TalliedCounter(provider.getMeter('test'), 'svc_calls', 'calls');
    expect(await sums(reader)).toBeNull(); // no series before the first count

    const made: string[] = [];
    const labels = (toolset: string, isError: boolean) => () => {
      made.push(toolset);
      return { toolset, is_error: String(isError) };
    };
    counter.increment('false\na', labels('a', false));
    counter.increment('false\na', labels('a', false));
    counter.increment('true\na', labels('a', true));
    expect(await sums(reader)).toEqual({
      name: 'svc_calls',
      type: DataPointType.SUM,
      monotonic: true,
      points: [
        { attributes: { toolset: 'a', is_error: 'false' }, value: 2 },
        { attributes: { toolset: 'a', is_error: 'true' }, value: 1 },
      ],
    });

    counter.increment('false\na', labels('a', false));
    expect(await sums(reader)).toMatchObject({
      points: [
        { attributes: { toolset: 'a', is_error: 'false' }, value: 3 },
        { attributes: { toolset: 'a', is_error: 'true' }, value: 1 },
      ],
    });
    expect(made).toEqual(['a', 'a']); // labels are made once per series
    await provider.shutdown();
  });
});
