import { Module } from '@nestjs/common';
import { AgentsModule } from '../agents/agents.module.js';
import { AgentModule } from '../runs/agent.module.js';
import { RunsModule } from '../runs/runs.module.js';
import { ChatCompletionsController } from './chat-completions.controller.js';
import { CompletionStreams } from './completion-streams.js';
import { OpenAiWireErrors } from './openai-wire-errors.js';

/**
 * The OpenAI-compatible wire: `POST /v1/chat/completions` and `GET /v1/models`, onto the same
 * runs as `POST /v1/agent/run` (AgentRunner) and their event log.
 */
@Module({
  imports: [AgentModule, AgentsModule, RunsModule],
  controllers: [ChatCompletionsController],
  providers: [CompletionStreams, OpenAiWireErrors],
})
export class OpenAiWireModule {}
