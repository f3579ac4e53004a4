/**
 * The MCP SDK v2, imported on first use. Its packages (@modelcontextprotocol/server, /node with
 * Hono, /client, and zod under them) are among the heaviest the gateway has, and most replicas
 * serve many requests before, or without, their first MCP one: imported at start they cost a
 * sizeable part of the start time and of the idle memory. So nothing imports them statically for
 * their values (types are free): the MCP host loads the server side before it handles its first
 * request (McpHttpHost), the upstream connections load the client before their first connection,
 * and the few other users (prompt and resource registration, a tool answer shaped like MCP
 * content) load what they need where they are already asynchronous. Code that runs only after
 * such a load reads the module synchronously with `get()`.
 *
 * The protocol constants the gateway uses outside those paths are copied below, checked against
 * the SDK by mcp-sdk.spec.ts.
 */

import { LazyModule } from '../platform/lazy/lazy-module.js';

type ServerSdk = typeof import('@modelcontextprotocol/server');
type NodeSdk = typeof import('@modelcontextprotocol/node');
type ClientSdk = typeof import('@modelcontextprotocol/client');

/** @modelcontextprotocol/server: Server, createMcpHandler, the spec's type guards. */
export const mcpServerSdk = new LazyModule<ServerSdk>(
  '@modelcontextprotocol/server',
  () => import('@modelcontextprotocol/server'),
);

/** @modelcontextprotocol/node: the Node transports of the 2025 revisions and toNodeHandler. */
export const mcpNodeSdk = new LazyModule<NodeSdk>(
  '@modelcontextprotocol/node',
  () => import('@modelcontextprotocol/node'),
);

/** @modelcontextprotocol/client: the client of upstream MCP servers. */
export const mcpClientSdk = new LazyModule<ClientSdk>(
  '@modelcontextprotocol/client',
  () => import('@modelcontextprotocol/client'),
);

/** The SDK's ProtocolErrorCode values the gateway answers with. */
export const ProtocolErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  ResourceNotFound: -32002,
} as const;

/** The reserved `_meta` key of a 2026-07-28 request's log level. */
export const LOG_LEVEL_META_KEY = 'io.modelcontextprotocol/logLevel';

/** The reserved `_meta` key of a 2026-07-28 request's client capabilities. */
export const CLIENT_CAPABILITIES_META_KEY = 'io.modelcontextprotocol/clientCapabilities';
