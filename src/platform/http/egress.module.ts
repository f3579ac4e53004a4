import { type DynamicModule, Global, Module } from '@nestjs/common';
import { type EgressLookup, systemLookup } from './egress-agent.js';
import { EGRESS_LOOKUP, TenantEgress } from './tenant-egress.js';

/** TenantEgress for every feature that calls destinations tenants chose. */
@Global()
@Module({})
export class EgressModule {
  static forRoot(lookup: EgressLookup = systemLookup): DynamicModule {
    return {
      module: EgressModule,
      providers: [{ provide: EGRESS_LOOKUP, useValue: lookup }, TenantEgress],
      exports: [TenantEgress],
    };
  }
}
