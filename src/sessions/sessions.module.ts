import { Module } from '@nestjs/common';
import { StateModule } from '../platform/state/state.module.js';
import { ConversationStore } from './conversation.store.js';
import { SessionsController } from './sessions.controller.js';

/** Conversations (`/v1/sessions`), continued by later runs with the same session_id. */
@Module({
  imports: [StateModule],
  controllers: [SessionsController],
  providers: [ConversationStore],
  exports: [ConversationStore],
})
export class SessionsModule {}
