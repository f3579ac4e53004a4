import { IsIn, IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { Identifier, TenantId } from '../../platform/http/dto/identifier.js';
import { CHANNELS, type Channel } from '../channels.js';

/** Slack's own limit on a message's text. */
export const MAX_EVENT_TEXT = 40_000;
/** The outbox's column size for the conversation, user and event ids. */
export const MAX_EVENT_ID = 256;

/**
 * The generic chat event of POST /v1/messaging/webhook (CONTRACT section 7). The ids are
 * identifiers (no control characters); `text` is free text, kept exactly, NUL included.
 */
export class GenericEventDto {
  @TenantId() tenant_id!: string;
  @IsIn(CHANNELS, { message: 'channel must be one of chata, chatb' }) channel!: Channel;
  @Identifier(MAX_EVENT_ID) conversation_id!: string;
  @Identifier(MAX_EVENT_ID) user!: string;
  @IsString() @IsNotEmpty() @MaxLength(MAX_EVENT_TEXT) text!: string;
  @Identifier(MAX_EVENT_ID) event_id!: string;
}
