import { IsIn, IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { MAX_TENANT_ID } from '../../state/state-key.limits.js';
import { CHANNELS, type Channel } from '../channels.js';

/** Slack's own limit on a message's text. */
export const MAX_EVENT_TEXT = 40_000;

/** The generic chat event of POST /v1/messaging/webhook (CONTRACT section 7). */
export class GenericEventDto {
  @IsString() @IsNotEmpty() @MaxLength(MAX_TENANT_ID) tenant_id!: string;
  @IsIn(CHANNELS, { message: 'channel must be one of chata, chatb' }) channel!: Channel;
  @IsString() @IsNotEmpty() @MaxLength(256) conversation_id!: string;
  @IsString() @IsNotEmpty() @MaxLength(256) user!: string;
  @IsString() @IsNotEmpty() @MaxLength(MAX_EVENT_TEXT) text!: string;
  @IsString() @IsNotEmpty() @MaxLength(256) event_id!: string;
}
