import type { NestApplicationOptions } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import etag from 'etag';
import type { Express, Response } from 'express';
import { createServer, IncomingMessage, ServerResponse } from 'node:http';

/** Methods whose answers a client can revalidate with an ETag: those Express's `req.fresh` checks. */
const REVALIDATED_METHODS = new Set(['GET', 'HEAD', 'QUERY']);

/**
 * Express gives every request and response its app's prototype (`app.request`, `app.response`)
 * with `Object.setPrototypeOf` in `app.handle`. On V8 that moves each object to another map and
 * copies its properties out: measured on a bare Express app at one request in flight, it doubled
 * what a `GET` allocates (27.6 against 12.1 KB) and a quarter of it lived long enough to be
 * promoted, so the old generation filled and full collections came every second or two (the
 * latency spikes of a run at c=1). Here Node's server constructs requests and responses with
 * those prototypes to begin with, so Express's call changes nothing: the app's prototypes become
 * the prototypes of two subclasses of Node's classes, with Express's own methods still above them.
 *
 * Only the answers to GET, HEAD and QUERY get an ETag (withETagsForReads; Express gives every
 * answer one).
 */
export class GatewayExpressAdapter extends ExpressAdapter {
  override initHttpServer(options: NestApplicationOptions): void {
    // These options need Nest's own server set-up (the gateway uses none of them).
    if (options.httpsOptions || options.forceCloseConnections || options.return503OnClosing) {
      super.initHttpServer(options);
      return;
    }
    const app = this.getInstance<Express>();
    class GatewayRequest extends IncomingMessage {}
    class GatewayResponse extends ServerResponse {}
    app.request = adopt(GatewayRequest.prototype, app.request);
    app.response = adopt(GatewayResponse.prototype, app.response);
    app.set('etag', false);
    app.response.send = withETagsForReads(app.response.send);
    this.httpServer = createServer(
      { IncomingMessage: GatewayRequest, ServerResponse: GatewayResponse as typeof ServerResponse },
      app,
    );
  }
}

/**
 * Express's `send` that gives the answer to a GET, HEAD or QUERY the weak ETag Express would (so a
 * matching If-None-Match is answered 304), and every other answer none. With Express's own
 * `etag` setting every answer pays for it: a SHA-1 of the body, and a body copied into a Buffer
 * and written apart from the headers (6 % of a tool call's CPU, measured), for an ETag no
 * client can use (Express answers 304 to GET, HEAD and QUERY only; the gateway serves no QUERY).
 */
function withETagsForReads(send: Response['send']): Response['send'] {
  return function (this: Response, body?: unknown) {
    if (
      REVALIDATED_METHODS.has(this.req.method) &&
      (typeof body === 'string' || Buffer.isBuffer(body)) &&
      !this.get('ETag')
    ) {
      this.set('ETag', etag(body, { weak: true }));
    }
    return send.call(this, body);
  };
}

/**
 * Makes `prototype` stand in for the app's `appPrototype`: the same parent (Express's request or
 * response methods) and the same own properties (`app`).
 */
function adopt<T extends object>(prototype: object, appPrototype: T): T {
  Object.setPrototypeOf(prototype, Object.getPrototypeOf(appPrototype) as object);
  Object.defineProperties(prototype, Object.getOwnPropertyDescriptors(appPrototype));
  return prototype as T;
}
