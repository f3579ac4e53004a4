import { Module } from '@nestjs/common';

/** Model providers behind the ChatProvider port (being built). */
@Module({})
export class ProvidersModule {}
