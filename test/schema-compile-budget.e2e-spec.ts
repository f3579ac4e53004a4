import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { BACKENDS } from './support/backends.js';
import { gatewayForSuite } from './support/suite.js';
import { type ToolEndpoint, startToolEndpoint } from './support/tool-endpoint.js';

const KEY = 'compile-budget-root-key';
const auth = { Authorization: `Bearer ${KEY}` };

/** A schema nobody registered before: compiling it costs real time (about a millisecond or more). */
function freshSchema(seed: string) {
  const properties: Record<string, unknown> = {};
  for (let i = 0; i < 40; i++) {
    properties[`${seed}_${i}`] = { type: 'string', pattern: `^${seed}[a-z]{1,8}$`, maxLength: 64 };
  }
  return { type: 'object', properties };
}

let endpoint: ToolEndpoint;
beforeAll(async () => {
  endpoint = await startToolEndpoint();
});
afterAll(() => endpoint.close());

/**
 * A tenant registering one new schema after another cannot keep the event loop compiling for
 * everyone: with a budget of 1 ms a minute, its first compilation spends it.
 */
describe.each(BACKENDS)('schema compilation budget per tenant (%s)', (backend) => {
  const gateway = gatewayForSuite(backend, {
    SVC_API_KEY: KEY,
    SVC_SCHEMA_COMPILE_MS_PER_MIN: '1',
  });
  const register = (tenant: string, name: string, schema: Record<string, unknown>) =>
    request(gateway.url)
      .put(`/v1/toolsets/ops/tools/${name}`)
      .set(auth)
      .send({
        tenant_id: tenant,
        description: name,
        parameters: schema,
        endpoint: { url: `${endpoint.url}/echo` },
      });

  it('refuses new compilations with 429 and Retry-After once spent; other tenants and compiled tools go on', async () => {
    await register('spender', 'first', freshSchema('aa')).expect(200);
    const refused = await register('spender', 'second', freshSchema('bb')).expect(429);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(refused.body.type).toBe('urn:svc:problem:schema-compile-budget');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);

    // The tool it registered works: its schema was compiled at registration.
    const call = await request(gateway.url)
      .post('/v1/tools/ops/first')
      .set(auth)
      .send({ tenant_id: 'spender', arguments: { aa_0: 'aaxyz' } })
      .expect(200);
    expect(call.body.result).toEqual({ received: { aa_0: 'aaxyz' } });
    // Registering a schema already compiled costs nothing, so it is still accepted.
    await register('spender', 'first_again', freshSchema('aa')).expect(200);
    // Another tenant has its own budget.
    await register('other', 'second', freshSchema('bb')).expect(200);
  });
});
