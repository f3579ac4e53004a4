import type { PromptMessage } from '@modelcontextprotocol/server';
import type { JsonValue } from '../../platform/state/state-store.js';

/** An argument of a prompt template; `values` are what completions offer for it. */
export interface PromptArgumentSpec {
  name: string;
  title?: string;
  description?: string;
  required?: boolean;
  values?: string[];
}

/** A tenant's prompt template as stored: text blocks may hold `{{argument}}` placeholders. */
export interface StoredPrompt {
  title?: string;
  description?: string;
  arguments: PromptArgumentSpec[];
  messages: PromptMessage[];
  [key: string]: JsonValue | undefined | PromptArgumentSpec[] | PromptMessage[];
}

export const MAX_PROMPT_ARGUMENTS = 32;
export const MAX_PROMPT_MESSAGES = 32;
export const MAX_ARGUMENT_VALUES = 100;
/** What one completion answers at most (the spec's own cap). */
export const MAX_COMPLETIONS = 100;
