import { Controller, Get, NotFoundException, Param } from '@nestjs/common';
import { RequirePermissions } from '../platform/auth/auth.decorators.js';
import { TenantQueryDto } from '../platform/http/dto/tenant-query.dto.js';
import { ValidQuery } from '../platform/http/validated-params.js';
import type { ChatMessage } from '../providers/chat.types.js';
import { ConversationStore } from './conversation.store.js';

export interface SessionView {
  session_id: string;
  tenant_id: string;
  messages: ChatMessage[];
  /** Oldest messages dropped to keep the session within SVC_SESSION_MAX_BYTES (0: none). */
  trimmed_messages: number;
  version: number;
  updated_at: string | null;
}

@Controller('v1/sessions')
export class SessionsController {
  constructor(private readonly conversations: ConversationStore) {}

  /** A session's conversation as checkpointed (any replica). */
  @RequirePermissions('runs:read')
  @Get(':session_id')
  async get(
    @Param('session_id') sessionId: string,
    @ValidQuery() query: TenantQueryDto,
  ): Promise<SessionView> {
    const conversation = await this.conversations.load(query.tenant_id, sessionId);
    if (conversation.version === 0) {
      throw new NotFoundException(`no session ${JSON.stringify(sessionId)} for this tenant`);
    }
    return {
      session_id: sessionId,
      tenant_id: query.tenant_id,
      messages: conversation.messages,
      trimmed_messages: conversation.trimmed,
      version: conversation.version,
      updated_at:
        conversation.updatedAt === null ? null : new Date(conversation.updatedAt).toISOString(),
    };
  }
}
