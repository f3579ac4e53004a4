import { describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { StateUnavailableError } from '../state/state-store.js';
import { OutageLog } from './outage-log.js';

describe('OutageLog', () => {
  const setup = () => {
    const logger = new Logger('test');
    const warn = jest.spyOn(logger, 'warn').mockImplementation(() => undefined);
    const log = jest.spyOn(logger, 'log').mockImplementation(() => undefined);
    return { outage: new OutageLog(logger, 'outbox poll'), warn, log };
  };

  it('logs a failure when it starts and when it ends, not on every tick', () => {
    const { outage, warn, log } = setup();
    outage.succeeded();
    for (let tick = 0; tick < 50; tick++) outage.failed(new StateUnavailableError('down'));
    expect(outage.down).toBe(true);
    outage.succeeded();
    outage.succeeded();
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0][1]).toBe('outbox poll failed; retrying until it works again');
    expect(log.mock.calls).toEqual([['outbox poll works again']]);
    expect(outage.down).toBe(false);
  });

  it('logs again when it fails another way, and after working again', () => {
    const { outage, warn } = setup();
    outage.failed(new StateUnavailableError('down'));
    outage.failed(new TypeError('a bug'));
    outage.failed(new TypeError('a bug'));
    outage.succeeded();
    outage.failed(new StateUnavailableError('down'));
    expect(warn).toHaveBeenCalledTimes(3);
  });
});
