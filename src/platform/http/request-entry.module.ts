import { Module } from '@nestjs/common';
import { RequestEntryMiddleware } from './request-entry.middleware.js';

/**
 * Provides RequestEntryMiddleware; the app's request pipeline (src/app/request-pipeline.ts)
 * mounts it on Express, first after Node's Host check, so everything after it runs inside the
 * request's scope.
 */
@Module({ providers: [RequestEntryMiddleware], exports: [RequestEntryMiddleware] })
export class RequestEntryModule {}
