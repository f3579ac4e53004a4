import { Transform } from 'class-transformer';
import { IsBoolean } from 'class-validator';
import { TenantId } from '../../platform/http/dto/identifier.js';
import { IfPresent } from '../../platform/http/dto/if-present.js';

const BOOLEAN_WORDS: Record<string, boolean> = { true: true, '1': true, false: false, '0': false };

/** POST /v1/messaging/webhook?tenant_id=&wait= */
export class WebhookQueryDto {
  /** Optional: must repeat the body's tenant (generic) or the Slack workspace's (slack-tenant.ts). */
  @IfPresent() @TenantId() tenant_id?: string;

  /** Run the agent in the request and answer with the reply. */
  @IfPresent()
  @Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' && value in BOOLEAN_WORDS ? BOOLEAN_WORDS[value] : value,
  )
  @IsBoolean({ message: 'wait must be true or false' })
  wait?: boolean;
}
