import { Injectable } from '@nestjs/common';
import type { GetPromptResult, Prompt, PromptMessage } from '@modelcontextprotocol/server';
import { AuditSink } from '../../platform/audit/audit-sink.js';
import { ProblemException, ValidationProblem } from '../../platform/http/problem.js';
import type { JsonValue } from '../../platform/state/state-store.js';
import { StateStore } from '../../platform/state/state-store.js';
import { mcpServerSdk } from '../../tools/mcp-sdk.js';
import { CatalogChanges } from '../catalog-changes.js';
import { CatalogEntries } from '../catalog-entries.js';
import type { RegisterPromptDto } from './dto/register-prompt.dto.js';
import { MAX_COMPLETIONS, type PromptArgumentSpec, type StoredPrompt } from './prompt.types.js';

/** The state scope of prompt templates. */
export const PROMPTS_SCOPE = 'prompts';

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function parsePrompt(value: JsonValue): StoredPrompt | null {
  if (!isObject(value) || !Array.isArray(value.arguments) || !Array.isArray(value.messages)) {
    return null;
  }
  return value as unknown as StoredPrompt;
}

/** `{{name}}` placeholders (in text, and in an embedded resource's uri and text), each replaced by its argument's value (absent: empty). */
function render(text: string, args: Record<string, string>): string {
  return text.replace(/\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g, (_, name: string) => args[name] ?? '');
}

function renderMessage(message: PromptMessage, args: Record<string, string>): PromptMessage {
  const { content } = message;
  if (content.type === 'text')
    return { ...message, content: { ...content, text: render(content.text, args) } };
  if (content.type === 'resource') {
    const uri = render(content.resource.uri, args);
    const resource =
      'text' in content.resource
        ? { ...content.resource, uri, text: render(content.resource.text, args) }
        : { ...content.resource, uri };
    return { ...message, content: { ...content, resource } };
  }
  return message;
}

/**
 * Tenants' prompt templates: registered over REST, listed and rendered by the MCP host
 * (`prompts/list`, `prompts/get`), their arguments completed from the values the tenant gave.
 */
@Injectable()
export class PromptTemplates {
  private readonly entries: CatalogEntries<StoredPrompt>;

  constructor(
    state: StateStore,
    private readonly audit: AuditSink,
    private readonly changes: CatalogChanges,
  ) {
    this.entries = new CatalogEntries(state, PROMPTS_SCOPE, 'prompt', parsePrompt);
  }

  async register(name: string, body: RegisterPromptDto, actor?: string) {
    const { isSpecType } = await mcpServerSdk.load();
    const errors = body.messages.flatMap((message, i) =>
      isSpecType.PromptMessage(message)
        ? []
        : [
            {
              path: `messages[${i}]`,
              message:
                'must be an MCP prompt message: {role: "user"|"assistant", content: text, image, audio, resource or resource_link}',
            },
          ],
    );
    const names = (body.arguments ?? []).map((argument) => argument.name);
    names.forEach((argName, i) => {
      if (names.indexOf(argName) !== i) {
        errors.push({ path: `arguments[${i}].name`, message: `"${argName}" is declared twice` });
      }
    });
    if (errors.length > 0) throw new ValidationProblem(errors, errors[0].message);
    const prompt: StoredPrompt = {
      ...(body.title === undefined ? {} : { title: body.title }),
      ...(body.description === undefined ? {} : { description: body.description }),
      arguments: (body.arguments ?? []).map((argument) => ({ ...argument })),
      messages: body.messages as unknown as PromptMessage[],
    };
    const { replaced } = await this.entries.put(body.tenant_id, name, prompt);
    this.audit.record({
      kind: 'prompt.registered',
      tenantId: body.tenant_id,
      actor,
      details: { prompt: name, replaced },
    });
    void this.changes.announce({ tenantId: body.tenant_id, kind: 'prompts' });
    return { name, ...prompt };
  }

  async remove(tenantId: string, name: string, actor?: string): Promise<void> {
    await this.entries.delete(tenantId, name);
    this.audit.record({ kind: 'prompt.deleted', tenantId, actor, details: { prompt: name } });
    void this.changes.announce({ tenantId, kind: 'prompts' });
  }

  async has(tenantId: string, name: string): Promise<boolean> {
    return (await this.entries.get(tenantId, name)) !== null;
  }

  describe(tenantId: string, name: string) {
    return this.entries.require(tenantId, name).then((prompt) => ({ name, ...prompt }));
  }

  async list(tenantId: string) {
    return (await this.entries.list(tenantId)).map(({ name, value }) => ({ name, ...value }));
  }

  /** The MCP `prompts/list` entries. */
  async listMcp(tenantId: string): Promise<Prompt[]> {
    return (await this.entries.list(tenantId)).map(({ name, value }) => ({
      name,
      ...(value.title === undefined ? {} : { title: value.title }),
      ...(value.description === undefined ? {} : { description: value.description }),
      arguments: value.arguments.map(({ values: _values, ...argument }) => argument),
    }));
  }

  /** `prompts/get`: 404 for an unknown prompt, 400 naming a missing required argument. */
  async render(
    tenantId: string,
    name: string,
    args: Record<string, string>,
  ): Promise<GetPromptResult> {
    const prompt = await this.entries.require(tenantId, name);
    const missing = prompt.arguments.filter(
      (argument) => argument.required && !(argument.name in args),
    );
    if (missing.length > 0) {
      throw new ProblemException(
        400,
        `prompt "${name}" needs the argument${missing.length > 1 ? 's' : ''} ${missing.map((a) => `"${a.name}"`).join(', ')}`,
        'invalid-arguments',
      );
    }
    return {
      ...(prompt.description === undefined ? {} : { description: prompt.description }),
      messages: prompt.messages.map((message) => renderMessage(message, args)),
    };
  }

  /** Completion candidates for one argument: its declared values that start with `prefix`. */
  async complete(tenantId: string, name: string, argument: string, prefix: string) {
    const prompt = await this.entries.get(tenantId, name);
    const spec: PromptArgumentSpec | undefined = prompt?.arguments.find((a) => a.name === argument);
    const matches = (spec?.values ?? []).filter((value) => value.startsWith(prefix));
    return {
      values: matches.slice(0, MAX_COMPLETIONS),
      total: matches.length,
      hasMore: matches.length > MAX_COMPLETIONS,
    };
  }
}
