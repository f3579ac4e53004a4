import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import request from 'supertest';
import { RequestValidationPipe } from '../src/platform/http/validation.pipe.js';
import { routeArguments, routeHandlers } from '../src/platform/openapi/route-handlers.js';
import { type RunningGateway, startGateway } from './support/gateway.js';
import { StandInController } from './support/stand-in.controller.js';

const KEY = 'request-validation-root-key';
const auth = { Authorization: `Bearer ${KEY}` };

/** The kinds of param whose value comes from the client as it sent it. */
const CLIENT_VALUES = new Set([RouteParamtypes.BODY, RouteParamtypes.QUERY, RouteParamtypes.PARAM]);

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
      for (const arg of routeArguments(route)) {
        if (!CLIENT_VALUES.has(arg.kind)) continue;
        // `@Param('toolset') toolset: string`: the path segment is the value, nothing to check.
        if (arg.data !== undefined && arg.type === String) continue;
        if (arg.pipes.includes(RequestValidationPipe)) validated++;
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
