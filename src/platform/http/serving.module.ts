import { Global, Module } from '@nestjs/common';
import { ServingSignal } from './serving-signal.js';

/** ServingSignal for every feature whose background work needs a serving process. */
@Global()
@Module({ providers: [ServingSignal], exports: [ServingSignal] })
export class ServingModule {}
