import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import request from 'supertest';
import { RequestValidationPipe } from '../src/platform/http/validation.pipe.js';
import { routeHandlers } from '../src/platform/openapi/route-handlers.js';
import { type RunningGateway, startGateway } from './support/gateway.js';
import { StandInController } from './support/stand-in.controller.js';

const KEY = 'request-validation-root-key';
const auth = { Authorization: `Bearer ${KEY}` };

/** The kinds of param whose value comes from the client as it sent it. */
const CLIENT_VALUES = new Set([RouteParamtypes.BODY, RouteParamtypes.QUERY, RouteParamtypes.PARAM]);

interface RouteArgument {
  index: number;
  data?: unknown;
  pipes?: unknown[];
}

/**
 * Request DTOs are validated by the pipe on their own param (ValidBody, ValidQuery, ValidParams),
 * not by a global pipe (src/platform/http/validated-params.ts says why): a route that took a DTO
 * with a bare `@Body()` would hand the handler whatever the client sent.
 */
describe('request validation', () => {
  let gateway: RunningGateway;

  beforeAll(async () => {
    gateway = await startGateway({ SVC_API_KEY: KEY }, { controllers: [StandInController] });
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('runs every client value a route takes, but a named string, through the validation pipe', () => {
    const unvalidated: string[] = [];
    let validated = 0;
    for (const [id, route] of routeHandlers(gateway.app)) {
      const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, route.controller, route.method) ??
        {}) as Record<string, RouteArgument>;
      const types = (Reflect.getMetadata(
        'design:paramtypes',
        route.controller.prototype as object,
        route.method,
      ) ?? []) as unknown[];
      for (const [key, arg] of Object.entries(args)) {
        const kind = Number(key.split(':')[0]) as RouteParamtypes;
        if (!CLIENT_VALUES.has(kind)) continue;
        // `@Param('toolset') toolset: string`: the path segment is the value, nothing to check.
        if (arg.data !== undefined && types[arg.index] === String) continue;
        if (arg.pipes?.includes(RequestValidationPipe)) validated++;
        else unvalidated.push(`${id} param ${arg.index}`);
      }
    }
    expect(unvalidated).toEqual([]);
    expect(validated).toBeGreaterThan(40); // the walk found the app's routes
  });

  it('answers a DTO that breaks its rules with the 400 problem, and hands a valid one over', async () => {
    const unknownField = await request(gateway.url)
      .post('/v1/tools/default/echo')
      .set(auth)
      .send({ tenant_id: 'acme', arguments: { text: 'hi' }, extra: 1 });
    expect(unknownField.status).toBe(400);
    expect(unknownField.body).toMatchObject({
      status: 400,
      errors: [{ path: 'extra', message: 'property extra should not exist' }],
    });

    const badQuery = await request(gateway.url).get('/v1/toolsets').set(auth);
    expect(badQuery.status).toBe(400);
    expect((badQuery.body as { errors: Array<{ path: string }> }).errors[0]).toMatchObject({
      path: 'tenant_id',
    });

    const valid = await request(gateway.url)
      .post('/stand-in/tenant')
      .set(auth)
      .send({ tenant_id: 'acme', items: [{ name: 'a' }] });
    expect(valid.status).toBe(201);
    expect(valid.body).toEqual({ tenant_id: 'acme', key: 'root', body_type: 'TenantRequestDto' });
  });
});
