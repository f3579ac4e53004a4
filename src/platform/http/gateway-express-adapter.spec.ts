import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Express, Request, Response } from 'express';
import { IncomingMessage, type Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GatewayExpressAdapter } from './gateway-express-adapter.js';

describe('GatewayExpressAdapter', () => {
  let server: Server;
  let base: string;
  let app: Express;
  /** The prototypes requests and responses arrive with, before Express's app.handle runs. */
  const arrived: { req: object; res: object }[] = [];
  const seen: { req: Request; res: Response }[] = [];

  beforeAll(async () => {
    const adapter = new GatewayExpressAdapter();
    adapter.initHttpServer({});
    app = adapter.getInstance<Express>();
    app.set('trust proxy', 'loopback');
    app.get('/seen', (req, res) => {
      seen.push({ req, res });
      // Express's own request and response methods still answer.
      res.status(201).json({ header: req.get('x-probe'), ip: req.ip, protocol: req.protocol });
    });
    server = adapter.getHttpServer();
    server.prependListener('request', (req, res) => {
      arrived.push({ req: Object.getPrototypeOf(req), res: Object.getPrototypeOf(res) });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it("constructs requests and responses with the app's prototypes, so Express has none to change", async () => {
    const response = await fetch(`${base}/seen`, { headers: { 'x-probe': 'yes' } });
    expect(response.status).toBe(201);
    expect(await response.json()).toEqual({ header: 'yes', ip: '127.0.0.1', protocol: 'http' });

    expect(arrived).toEqual([{ req: app.request, res: app.response }]);
    const [{ req, res }] = seen;
    expect(req).toBeInstanceOf(IncomingMessage);
    expect(res).toBeInstanceOf(ServerResponse);
    expect(req.app).toBe(app);
    expect(res.app).toBe(app);
  });

  it('keeps Express methods above the new prototypes (the request and response modules)', () => {
    const requestMethods = Object.getPrototypeOf(app.request) as object;
    const responseMethods = Object.getPrototypeOf(app.response) as object;
    expect(typeof (requestMethods as Request).get).toBe('function');
    expect(typeof (responseMethods as Response).json).toBe('function');
    expect(Object.getPrototypeOf(requestMethods)).toBe(IncomingMessage.prototype);
    expect(Object.getPrototypeOf(responseMethods)).toBe(ServerResponse.prototype);
  });
});
