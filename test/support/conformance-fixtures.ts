import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';

/** A 1x1 red PNG and a tiny WAV header: the smallest real media the suite accepts. */
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const WAV = 'UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=';

/** What each fixture tool's HTTP endpoint answers (MCP content passes through the gateway). */
const ANSWERS: Record<string, unknown> = {
  test_simple_text: {
    content: [{ type: 'text', text: 'This is a simple text response for testing.' }],
  },
  test_image_content: { content: [{ type: 'image', data: PNG, mimeType: 'image/png' }] },
  test_audio_content: { content: [{ type: 'audio', data: WAV, mimeType: 'audio/wav' }] },
  test_embedded_resource: {
    content: [
      {
        type: 'resource',
        resource: {
          uri: 'test://embedded-resource',
          mimeType: 'text/plain',
          text: 'This is an embedded resource content.',
        },
      },
    ],
  },
  test_multiple_content_types: {
    content: [
      { type: 'text', text: 'Multiple content types test:' },
      { type: 'image', data: PNG, mimeType: 'image/png' },
      {
        type: 'resource',
        resource: {
          uri: 'test://mixed-content-resource',
          mimeType: 'application/json',
          text: '{"test":"data","value":123}',
        },
      },
    ],
  },
  test_error_handling: {
    isError: true,
    content: [{ type: 'text', text: 'This tool intentionally returns an error for testing' }],
  },
  test_reconnection: { content: [{ type: 'text', text: 'Reconnection test completed' }] },
  json_schema_2020_12_tool: { content: [{ type: 'text', text: 'ok' }] },
};

const NO_ARGUMENTS = { type: 'object', properties: {} };
const SCHEMA_2020_12 = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: {
    address: {
      type: 'object',
      properties: { street: { type: 'string' }, city: { type: 'string' } },
    },
  },
  properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
  additionalProperties: false,
};

/** Tools that report while they work: a streamed answer (text/event-stream), 50 ms apart. */
const STREAMS: Record<string, object[]> = {
  test_tool_with_progress: [
    { progress: 0, total: 100 },
    { progress: 50, total: 100 },
    { progress: 100, total: 100 },
    { result: { content: [{ type: 'text', text: 'Progress test completed' }] } },
  ],
  test_tool_with_logging: [
    { log: { level: 'info', data: 'Tool execution started' } },
    { log: { level: 'info', data: 'Tool processing data' } },
    { log: { level: 'info', data: 'Tool execution completed' } },
    { result: { content: [{ type: 'text', text: 'Logging test completed' }] } },
  ],
};

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface ConformanceEndpoint {
  url: string;
  close(): Promise<void>;
}

/** The HTTP endpoint behind the fixture tools: `/<tool>` answers that tool's content. */
export async function startConformanceEndpoint(): Promise<ConformanceEndpoint> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const tool = (req.url ?? '/').slice(1);
      const stream = STREAMS[tool];
      if (stream) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        void (async () => {
          for (const event of stream) {
            res.write(`data: ${JSON.stringify(event)}\n\n`);
            await pause(50);
          }
          res.end();
        })();
        return;
      }
      const answer = ANSWERS[tool];
      res.writeHead(answer ? 200 : 404, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer ?? { error: 'no such fixture' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * The conformance suite's fixtures, registered the way a tenant would: HTTP tools in the
 * `default` toolset, the tools that ask the client (sampling, elicitation) as an upstream MCP
 * server of it with no name prefix, prompt templates and resources over REST.
 */
export async function registerConformanceFixtures(
  gatewayUrl: string,
  tenant: string,
  endpointUrl: string,
  askingUrl: string,
): Promise<void> {
  const put = (path: string, body: object) =>
    request(gatewayUrl)
      .put(path)
      .send({ tenant_id: tenant, ...body })
      .expect(200);
  for (const name of [...Object.keys(ANSWERS), ...Object.keys(STREAMS)]) {
    await put(`/v1/toolsets/default/tools/${name}`, {
      description: `conformance fixture ${name}`,
      parameters: name === 'json_schema_2020_12_tool' ? SCHEMA_2020_12 : NO_ARGUMENTS,
      endpoint: { url: `${endpointUrl}/${name}` },
    });
  }
  await put('/v1/toolsets/default/upstreams/asking', {
    url: askingUrl,
    prefix: '',
    tools: [
      'test_sampling',
      'test_elicitation',
      'test_elicitation_sep1034_defaults',
      'test_elicitation_sep1330_enums',
    ],
  });
  const user = (content: object) => ({ role: 'user', content });
  await put('/v1/prompts/test_simple_prompt', {
    description: 'A simple prompt without arguments',
    messages: [user({ type: 'text', text: 'This is a simple prompt for testing.' })],
  });
  await put('/v1/prompts/test_prompt_with_arguments', {
    description: 'A prompt with arguments',
    arguments: [
      {
        name: 'arg1',
        description: 'First test argument',
        required: true,
        values: ['paris', 'park', 'party'],
      },
      { name: 'arg2', description: 'Second test argument', required: true },
    ],
    messages: [
      user({ type: 'text', text: "Prompt with arguments: arg1='{{arg1}}', arg2='{{arg2}}'" }),
    ],
  });
  await put('/v1/prompts/test_prompt_with_embedded_resource', {
    description: 'A prompt with an embedded resource',
    arguments: [
      { name: 'resourceUri', description: 'URI of the resource to embed', required: true },
    ],
    messages: [
      user({
        type: 'resource',
        resource: {
          uri: '{{resourceUri}}',
          mimeType: 'text/plain',
          text: 'Embedded resource content for testing.',
        },
      }),
      user({ type: 'text', text: 'Please process the embedded resource above.' }),
    ],
  });
  await put('/v1/prompts/test_prompt_with_image', {
    description: 'A prompt with an image',
    messages: [
      user({ type: 'image', data: PNG, mimeType: 'image/png' }),
      user({ type: 'text', text: 'Please analyze the image above.' }),
    ],
  });
  await put('/v1/resources/static-text', {
    uri: 'test://static-text',
    description: 'A static text resource',
    mime_type: 'text/plain',
    text: 'This is the content of the static text resource.',
  });
  await put('/v1/resources/static-binary', {
    uri: 'test://static-binary',
    description: 'A static binary resource',
    mime_type: 'image/png',
    blob: PNG,
  });
  await put('/v1/resources/watched', {
    uri: 'test://watched-resource',
    description: 'A resource to subscribe to',
    mime_type: 'text/plain',
    text: 'Watched resource content.',
  });
  await put('/v1/resources/template', {
    uri_template: 'test://template/{id}/data',
    description: 'A templated resource',
    mime_type: 'application/json',
    text: '{"id":"{id}","templateTest":true,"data":"Data for ID: {id}"}',
  });
}
