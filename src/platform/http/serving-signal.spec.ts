import { describe, expect, it, jest } from '@jest/globals';
import type { HttpAdapterHost } from '@nestjs/core';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ServingSignal } from './serving-signal.js';

function signalFor(server?: Server): ServingSignal {
  const host = { httpAdapter: server ? { getHttpServer: () => server } : undefined };
  const signal = new ServingSignal(host as unknown as HttpAdapterHost);
  signal.onApplicationBootstrap();
  return signal;
}

const listen = (server: Server, port = 0) =>
  new Promise<Error | undefined>((resolve) => {
    server.once('error', resolve);
    server.listen(port, '127.0.0.1', () => resolve(undefined));
  });

describe('ServingSignal', () => {
  it('starts waiting work once the server listens, and later work at once', async () => {
    const server = createServer();
    const signal = signalFor(server);
    const early = jest.fn();
    signal.whenServing(early);
    expect(early).not.toHaveBeenCalled();
    await listen(server);
    try {
      expect(early).toHaveBeenCalledTimes(1);
      const late = jest.fn();
      signal.whenServing(late);
      expect(late).toHaveBeenCalledTimes(1);
    } finally {
      server.close();
    }
  });

  it('starts nothing when the server cannot listen', async () => {
    const taken = createServer();
    await listen(taken);
    const server = createServer();
    const signal = signalFor(server);
    const work = jest.fn();
    signal.whenServing(work);
    try {
      const error = await listen(server, (taken.address() as AddressInfo).port);
      expect(error).toMatchObject({ code: 'EADDRINUSE' });
      expect(work).not.toHaveBeenCalled();
    } finally {
      taken.close();
    }
  });

  it('starts nothing without an HTTP server (svc run) or after shutdown', async () => {
    const none = jest.fn();
    signalFor(undefined).whenServing(none);
    expect(none).not.toHaveBeenCalled();

    const server = createServer();
    const signal = signalFor(server);
    const work = jest.fn();
    signal.whenServing(work);
    signal.onApplicationShutdown();
    await listen(server);
    server.close();
    expect(work).not.toHaveBeenCalled();
  });
});
