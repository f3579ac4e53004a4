import {
  Injectable,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { Server } from 'node:net';

/**
 * Tells background work (run recovery, the outbox worker) when this process serves: once its HTTP
 * server emits `listening`. A process that cannot listen (port in use) or has no server at all
 * (`svc run`, `svc migrate`: an application context) never serves, so it never adopts another
 * replica's runs or deliveries; neither does one that shut down before listening.
 */
@Injectable()
export class ServingSignal implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly waiting: Array<() => void> = [];
  private serving = false;
  private stopped = false;

  constructor(private readonly adapterHost: HttpAdapterHost) {}

  /** Runs `start` once the server listens (at once if it already does); never if it does not. */
  whenServing(start: () => void): void {
    if (this.serving) start();
    else if (!this.stopped) this.waiting.push(start);
  }

  onApplicationBootstrap(): void {
    // Before listen(): the Node server exists once the Nest application has been created.
    const server = this.adapterHost.httpAdapter?.getHttpServer() as Server | undefined;
    if (!server) return;
    if (server.listening) this.serve();
    else server.once('listening', () => this.serve());
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    this.waiting.length = 0;
  }

  private serve(): void {
    if (this.serving || this.stopped) return;
    this.serving = true;
    for (const start of this.waiting.splice(0)) start();
  }
}
