import { Injectable } from '@nestjs/common';
import type {
  ListResourceTemplatesResult,
  ReadResourceResult,
  Resource,
} from '@modelcontextprotocol/server';
import { AuditSink } from '../../platform/audit/audit-sink.js';
import { ValidationProblem } from '../../platform/http/problem.js';
import { type JsonValue, StateStore } from '../../platform/state/state-store.js';
import { mcpServerSdk } from '../../tools/mcp-sdk.js';
import { CatalogChanges } from '../catalog-changes.js';
import { CatalogEntries } from '../catalog-entries.js';
import type { RegisterResourceDto } from './dto/register-resource.dto.js';
import type { StoredResource } from './resource.types.js';

/** One `resources/templates/list` entry. */
type TemplateEntry = ListResourceTemplatesResult['resourceTemplates'][number];

/** The state scope of registered resources. */
export const RESOURCES_SCOPE = 'mcp-resources';

function parseResource(value: JsonValue): StoredResource | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const stored = value as StoredResource;
  const located = typeof stored.uri === 'string' || typeof stored.uriTemplate === 'string';
  const content = typeof stored.text === 'string' || typeof stored.blob === 'string';
  return located && content ? stored : null;
}

/** `{variable}` placeholders of a template's text, filled from the URI that was read. */
function fill(text: string, variables: Record<string, string | string[]>): string {
  return text.replace(/\{([A-Za-z0-9_]+)\}/g, (whole, name: string) => {
    const value = variables[name];
    return value === undefined ? whole : Array.isArray(value) ? value.join(',') : value;
  });
}

/**
 * Resources tenants register for their MCP clients: fixed documents and templated families of
 * them, listed and read through the MCP host.
 */
@Injectable()
export class RegisteredResources {
  private readonly entries: CatalogEntries<StoredResource>;

  constructor(
    state: StateStore,
    private readonly audit: AuditSink,
    private readonly changes: CatalogChanges,
  ) {
    this.entries = new CatalogEntries(state, RESOURCES_SCOPE, 'resource', parseResource);
  }

  async register(name: string, body: RegisterResourceDto, actor?: string) {
    const errors = [];
    if ((body.uri === undefined) === (body.uri_template === undefined)) {
      errors.push({ path: 'uri', message: 'give exactly one of uri and uri_template' });
    }
    if ((body.text === undefined) === (body.blob === undefined)) {
      errors.push({ path: 'text', message: 'give exactly one of text and blob (base64)' });
    }
    if (body.uri_template !== undefined) {
      const { UriTemplate } = await mcpServerSdk.load();
      try {
        new UriTemplate(body.uri_template);
      } catch (error) {
        errors.push({
          path: 'uri_template',
          message: `is not a URI template: ${(error as Error).message}`,
        });
      }
    }
    if (errors.length > 0) throw new ValidationProblem(errors, errors[0].message);
    const resource: StoredResource = {
      ...(body.uri === undefined ? {} : { uri: body.uri }),
      ...(body.uri_template === undefined ? {} : { uriTemplate: body.uri_template }),
      ...(body.title === undefined ? {} : { title: body.title }),
      ...(body.description === undefined ? {} : { description: body.description }),
      ...(body.mime_type === undefined ? {} : { mimeType: body.mime_type }),
      ...(body.text === undefined ? {} : { text: body.text }),
      ...(body.blob === undefined ? {} : { blob: body.blob }),
    };
    const { replaced } = await this.entries.put(body.tenant_id, name, resource);
    this.audit.record({
      kind: 'resource.registered',
      tenantId: body.tenant_id,
      actor,
      details: { resource: name, replaced },
    });
    void this.changes.announce({
      tenantId: body.tenant_id,
      kind: 'resources',
      ...(resource.uri === undefined ? {} : { uri: resource.uri }),
    });
    return restView(name, resource);
  }

  async remove(tenantId: string, name: string, actor?: string): Promise<void> {
    const resource = await this.entries.require(tenantId, name);
    await this.entries.delete(tenantId, name);
    this.audit.record({ kind: 'resource.deleted', tenantId, actor, details: { resource: name } });
    void this.changes.announce({
      tenantId,
      kind: 'resources',
      ...(resource.uri === undefined ? {} : { uri: resource.uri }),
    });
  }

  describe(tenantId: string, name: string) {
    return this.entries.require(tenantId, name).then((resource) => restView(name, resource));
  }

  async list(tenantId: string) {
    return (await this.entries.list(tenantId)).map(({ name, value }) => restView(name, value));
  }

  async resources(tenantId: string): Promise<Resource[]> {
    return (await this.entries.list(tenantId)).flatMap(({ name, value }) =>
      value.uri === undefined ? [] : [{ uri: value.uri, name, ...metadata(value) }],
    );
  }

  async templates(tenantId: string): Promise<TemplateEntry[]> {
    return (await this.entries.list(tenantId)).flatMap(({ name, value }) =>
      value.uriTemplate === undefined
        ? []
        : [{ uriTemplate: value.uriTemplate, name, ...metadata(value) }],
    );
  }

  /** The contents at `uri`, or null when no registered resource or template has it. */
  async read(tenantId: string, uri: string): Promise<ReadResourceResult | null> {
    const entries = await this.entries.list(tenantId);
    const exact = entries.find(({ value }) => value.uri === uri);
    if (exact) return { contents: [contents(uri, exact.value, {})] };
    const { UriTemplate } = await mcpServerSdk.load();
    for (const { value } of entries) {
      if (value.uriTemplate === undefined) continue;
      const variables = new UriTemplate(value.uriTemplate).match(uri);
      if (variables) return { contents: [contents(uri, value, variables)] };
    }
    return null;
  }
}

/** A resource as REST shows it: the request's own snake_case names. */
function restView(name: string, value: StoredResource) {
  return {
    name,
    ...(value.uri === undefined ? {} : { uri: value.uri }),
    ...(value.uriTemplate === undefined ? {} : { uri_template: value.uriTemplate }),
    ...(value.title === undefined ? {} : { title: value.title }),
    ...(value.description === undefined ? {} : { description: value.description }),
    ...(value.mimeType === undefined ? {} : { mime_type: value.mimeType }),
    ...(value.text === undefined ? {} : { text: value.text }),
    ...(value.blob === undefined ? {} : { blob: value.blob }),
  };
}

function metadata(value: StoredResource) {
  return {
    ...(value.title === undefined ? {} : { title: value.title }),
    ...(value.description === undefined ? {} : { description: value.description }),
    ...(value.mimeType === undefined ? {} : { mimeType: value.mimeType }),
  };
}

function contents(
  uri: string,
  value: StoredResource,
  variables: Record<string, string | string[]>,
) {
  const mime = value.mimeType === undefined ? {} : { mimeType: value.mimeType };
  return value.text !== undefined
    ? { uri, ...mime, text: fill(value.text, variables) }
    : { uri, ...mime, blob: value.blob ?? '' };
}
