import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Request, Response } from 'express';
import { AuthFailures } from '../platform/auth/auth-failures.service.js';
import type { GatewayConfig } from '../platform/config/gateway-config.js';
import type { RawBodyRequest } from '../platform/http/json-body.middleware.js';
import { ProblemException } from '../platform/http/problem.js';
import { verifySignature } from './webhook-signature.js';

function header(req: Request, ...names: string[]): string | undefined {
  for (const name of names) {
    const value = req.headers[name];
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}

/**
 * Guards the inbound webhook when SVC_MESSAGING_SECRET is set (the route is then public to the
 * API-key guard): a Slack-style signature over the raw body, under Slack's header names or the
 * neutral `X-Signature` / `X-Timestamp`. Anything else is a 401, limited and audited per client
 * address like a wrong API key (AuthFailures): a client over its budget gets 429 before any HMAC
 * is computed.
 */
@Injectable()
export class WebhookSignatureGuard implements CanActivate {
  private readonly secret: string;

  constructor(
    config: ConfigService<GatewayConfig, true>,
    private readonly failures: AuthFailures,
  ) {
    const secret = config.get('messaging', { infer: true }).secret;
    if (secret === undefined) throw new Error('WebhookSignatureGuard needs SVC_MESSAGING_SECRET');
    this.secret = secret;
  }

  canActivate(context: ExecutionContext): boolean {
    const http = context.switchToHttp();
    const req = http.getRequest<Request & RawBodyRequest>();
    this.failures.refuseIfBlocked(req, http.getResponse<Response>());
    const check = verifySignature(this.secret, {
      signature: header(req, 'x-slack-signature', 'x-signature'),
      timestamp: header(req, 'x-slack-request-timestamp', 'x-timestamp'),
      body: req.rawBody ?? Buffer.alloc(0),
    });
    if (check.ok) return true;
    this.failures.failed(req, { status: 401, reason: check.reason });
    throw new ProblemException(401, check.reason, 'invalid-signature');
  }
}
