import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import express, { type Express, type Request, type Response } from 'express';
import { IncomingMessage, type Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { GatewayExpressAdapter } from './gateway-express-adapter.js';

/** The same answer for every method, a JSON object and a page, to compare ETags between apps. */
function sameAnswers(app: Express): void {
  app.all('/same', (_req, res) => void res.json({ answer: 'the same' }));
  app.all('/page', (_req, res) => void res.type('html').send('<p>the same page</p>'));
}

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
    sameAnswers(app);
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

  describe('ETags', () => {
    /** The ETag a plain Express app gives `path`'s answer to a GET (Express's own setting). */
    async function expressETag(path: string): Promise<string | null> {
      const plain = express();
      sameAnswers(plain);
      const other = plain.listen(0, '127.0.0.1');
      await new Promise((resolve) => other.once('listening', resolve));
      try {
        const port = (other.address() as AddressInfo).port;
        return (await fetch(`http://127.0.0.1:${port}${path}`)).headers.get('etag');
      } finally {
        await new Promise((resolve) => other.close(resolve));
      }
    }

    it.each(['/same', '/page'])(
      'gives the answer to a GET or HEAD of %s the ETag Express would, and 304 when it matches',
      async (path) => {
        const expected = await expressETag(path);
        expect(expected).toMatch(/^W\/"/);
        const get = await fetch(`${base}${path}`);
        expect(get.headers.get('etag')).toBe(expected);
        const head = await fetch(`${base}${path}`, { method: 'HEAD' });
        expect(head.headers.get('etag')).toBe(expected);
        // fetch() asks for no cached answer whenever it sends If-None-Match; supertest does not.
        const again = await request(server).get(path).set('If-None-Match', expected!);
        expect(again.status).toBe(304);
        expect(again.text).toBe('');
      },
    );

    it.each(['POST', 'PUT', 'DELETE', 'PATCH'])(
      'gives a %s answer none (no client can revalidate it) and answers it whole',
      async (method) => {
        const response = await fetch(`${base}/same`, { method, headers: { 'if-none-match': '*' } });
        expect(response.status).toBe(200);
        expect(response.headers.get('etag')).toBeNull();
        expect(response.headers.get('content-length')).toBe(
          String(JSON.stringify({ answer: 'the same' }).length),
        );
        expect(await response.json()).toEqual({ answer: 'the same' });
      },
    );
  });
});
