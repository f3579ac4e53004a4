import { type MiddlewareConsumer, Module, type NestModule } from '@nestjs/common';
import { RequestEntryMiddleware } from './request-entry.middleware.js';
import { EVERY_ROUTE } from './every-route.js';

/**
 * Mounts RequestEntryMiddleware on every route. AppModule imports it before every module that
 * mounts middleware of its own, so it runs first and they run inside the request's scope.
 */
@Module({ providers: [RequestEntryMiddleware] })
export class RequestEntryModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(RequestEntryMiddleware).forRoutes(EVERY_ROUTE);
  }
}
