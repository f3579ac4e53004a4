import { describe, expect, it } from '@jest/globals';
import { createServer } from 'node:net';
import { ConfigError } from '../platform/config/config-error.js';
import { CliFailure } from './cli-errors.js';
import { startError, startFailure } from './start-failure.js';

/** The error Node raises when listening on `port` of 127.0.0.1 fails. */
function listenError(port: number): Promise<Error> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', resolve);
    server.listen(port, '127.0.0.1', () => server.close());
  });
}

describe('startFailure', () => {
  it('names the address and the reason of a listen error', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const { port } = busy.address() as { port: number };
    try {
      expect(startFailure(await listenError(port), '127.0.0.1', port)).toBe(
        `cannot listen on 127.0.0.1:${port}: address already in use`,
      );
    } finally {
      busy.close();
    }
    const denied = Object.assign(new Error('listen EACCES'), {
      code: 'EACCES',
      syscall: 'listen',
    });
    expect(startFailure(denied, '::1', 80)).toBe('cannot listen on [::1]:80: permission denied');
  });

  it('says what else stopped the start', () => {
    expect(startFailure(new Error('board database cannot be opened'), 'h', 1)).toBe(
      'cannot start: board database cannot be opened',
    );
  });

  it('keeps a configuration error one (exit 2), anything else a CLI failure', () => {
    const config = new ConfigError('SVC_BOARD_DB "/x" cannot be opened: EACCES');
    expect(startError(config, 'h', 1)).toBe(config);
    expect(startError(new Error('boom'), 'h', 1)).toEqual(new CliFailure('cannot start: boom'));
  });
});
