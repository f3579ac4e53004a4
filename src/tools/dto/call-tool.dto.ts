import { IsObject } from 'class-validator';
import { TenantId } from '../../platform/http/dto/identifier.js';
import { IfPresent } from '../../platform/http/dto/if-present.js';
import { RawJson } from '../../platform/http/dto/raw-json.js';
import type { JsonValue } from '../../platform/state/state-store.js';

/** `POST /v1/tools/{toolset}/{name}`. */
export class CallToolDto {
  @TenantId() tenant_id!: string;

  /** Checked against the tool's schema by the executor (422); an object, `{}` when omitted. */
  @IfPresent() @IsObject() @RawJson() arguments?: { [key: string]: JsonValue };
}
