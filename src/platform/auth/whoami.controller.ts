import { Controller, Get } from '@nestjs/common';
import { ResponseSchema } from '../openapi/response-schema.js';
import { ApiKeyRegistry } from './api-key-registry.service.js';
import { CurrentPrincipal } from './auth.decorators.js';
import type { Principal } from './principal.js';
import { WHOAMI_SCHEMA, type WhoamiView, whoamiView } from './whoami.js';

/**
 * `GET /v1/whoami`: any valid key may ask what it is and may do, so a client (the studio page)
 * asks once and shows only what the key may read instead of collecting 403s.
 */
@Controller('v1/whoami')
export class WhoamiController {
  constructor(private readonly registry: ApiKeyRegistry) {}

  @Get()
  @ResponseSchema(WHOAMI_SCHEMA)
  whoami(@CurrentPrincipal() principal: Principal): WhoamiView {
    return whoamiView(principal, this.registry.enabled);
  }
}
