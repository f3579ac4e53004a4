import { Inject, Injectable, type NestMiddleware } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { NextFunction, Request, Response } from 'express';
import type { GatewayConfig } from '../platform/config/gateway-config.js';
import { JsonRpcCode, sendJsonRpcError } from './json-rpc-error.js';
import { MCP_MODULE_OPTIONS, type McpModuleOptions } from './mcp.options.js';
import { OriginPolicy } from './origin.policy.js';

/**
 * DNS-rebinding protection in front of everything else on the MCP routes, the key check
 * included: a page on a foreign site learns nothing, not even whether a key is needed (it
 * would otherwise get 401 before 403). The probe `GET path/health` is not checked.
 */
@Injectable()
export class McpOriginMiddleware implements NestMiddleware {
  private readonly policy: OriginPolicy;
  private readonly health: string;

  constructor(
    config: ConfigService<GatewayConfig, true>,
    @Inject(MCP_MODULE_OPTIONS) options: McpModuleOptions,
  ) {
    const bindHost = config.get('server', { infer: true }).host;
    this.policy = new OriginPolicy(config.get('mcp', { infer: true }), bindHost);
    this.health = `${options.path}/health`;
  }

  use(req: Request, res: Response, next: NextFunction): void {
    const path = req.originalUrl.split('?')[0].replace(/\/+$/, '');
    if (path === this.health) return next();
    const reason = this.policy.refusal(req.headers);
    if (reason === null) return next();
    sendJsonRpcError(res, { status: 403, code: JsonRpcCode.Transport, message: reason });
  }
}
