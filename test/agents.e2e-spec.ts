import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { BACKENDS } from './support/backends.js';
import { gatewayForSuite } from './support/suite.js';

const KEY = 'agents-test-root-key';
const auth = { Authorization: `Bearer ${KEY}` };

const pipeline = {
  tenant_id: 'acme',
  topology: 'pipeline',
  steps: [
    { id: 'fetch', kind: 'tool', tool: 'echo', arguments: { text: '{{input}}' } },
    {
      id: 'sum',
      kind: 'tool',
      tool: 'calculator',
      arguments: { expression: '1+1' },
      depends_on: ['fetch'],
    },
    {
      id: 'tell',
      kind: 'agent',
      prompt: 'Summarise {{steps.sum.output}}',
      depends_on: ['sum'],
      require_approval: true,
    },
  ],
};

describe.each(BACKENDS)('agent specifications (%s)', (backend) => {
  const gateway = gatewayForSuite(backend, { SVC_API_KEY: KEY });
  const put = (name: string, body: Record<string, unknown>) =>
    request(gateway.url).put(`/v1/agents/${name}`).set(auth).send(body);

  it('registers, reads, lists and versions a spec per tenant', async () => {
    const first = await put('triage', pipeline).expect(200);
    expect(first.body).toMatchObject({
      tenant_id: 'acme',
      name: 'triage',
      version: 1,
      topology: 'pipeline',
    });
    expect(first.body.steps[2]).toMatchObject({
      id: 'tell',
      require_approval: true,
      depends_on: ['sum'],
    });
    const second = await put('triage', { ...pipeline, description: 'v2' }).expect(200);
    expect(second.body.version).toBe(2);
    const read = await request(gateway.url)
      .get('/v1/agents/triage?tenant_id=acme')
      .set(auth)
      .expect(200);
    expect(read.body).toMatchObject({ name: 'triage', version: 2, description: 'v2' });
    const list = await request(gateway.url).get('/v1/agents?tenant_id=acme').set(auth).expect(200);
    expect(list.body).toEqual({ tenant_id: 'acme', agents: ['triage'] });
    await request(gateway.url).get('/v1/agents/triage?tenant_id=other').set(auth).expect(404);
  });

  it('rejects cycles, unknown dependencies, duplicate ids and unknown tools with 400 naming the step', async () => {
    const steps = (list: unknown[]) => ({ tenant_id: 'acme', topology: 'parallel', steps: list });
    const cycle = await put(
      'bad',
      steps([
        { id: 'a', kind: 'tool', tool: 'echo', depends_on: ['b'] },
        { id: 'b', kind: 'tool', tool: 'echo', depends_on: ['a'] },
      ]),
    ).expect(400);
    expect(cycle.body.errors).toEqual([
      { path: 'steps[0].depends_on', message: 'steps form a cycle: a → b → a' },
    ]);
    const unknown = await put(
      'bad',
      steps([{ id: 'a', kind: 'tool', tool: 'echo', depends_on: ['zzz'] }]),
    ).expect(400);
    expect(unknown.body.detail).toContain('"zzz"');
    const duplicate = await put(
      'bad',
      steps([
        { id: 'a', kind: 'tool', tool: 'echo' },
        { id: 'a', kind: 'tool', tool: 'echo' },
      ]),
    ).expect(400);
    expect(duplicate.body.errors[0].path).toBe('steps[1].id');
    const noTool = await put('bad', steps([{ id: 'a', kind: 'tool', tool: 'missing' }])).expect(
      400,
    );
    expect(noTool.body.errors[0]).toEqual({
      path: 'steps[0].tool',
      message: 'step "a": no tool "missing" in toolset "default"',
    });
    await put('bad', {
      tenant_id: 'acme',
      topology: 'supervisor',
      steps: [{ id: 'a', kind: 'tool', tool: 'echo' }],
    }).expect(400);
    await put('bad', {
      tenant_id: 'acme',
      topology: 'ring',
      steps: [{ id: 'a', kind: 'tool', tool: 'echo' }],
    }).expect(400);
    await request(gateway.url).get('/v1/agents/bad?tenant_id=acme').set(auth).expect(404);
  });

  it('rejects references to steps that have not run by then, naming the step', async () => {
    const refers = (topology: string, steps: unknown[]) =>
      put('refs', { tenant_id: 'acme', topology, steps });
    const later = await refers('pipeline', [
      { id: 'a', kind: 'tool', tool: 'echo', arguments: { text: '{{steps.b.output}}' } },
      { id: 'b', kind: 'tool', tool: 'echo', arguments: { text: 'x' } },
    ]).expect(400);
    expect(later.body.errors).toEqual([
      { path: 'steps[0].arguments', message: 'step "a" refers to step "b", which runs after it' },
    ]);
    const sibling = await refers('parallel', [
      { id: 'a', kind: 'tool', tool: 'echo', arguments: { text: 'x' } },
      { id: 'b', kind: 'agent', prompt: 'use {{steps.a.output}}' },
    ]).expect(400);
    expect(sibling.body.errors).toEqual([
      { path: 'steps[1].prompt', message: 'step "b" refers to step "a" without depending on it' },
    ]);
    const ghost = await refers('supervisor', [
      { id: 'a', kind: 'tool', tool: 'echo', arguments: { text: '{{steps.nope.output}}' } },
    ]).expect(400);
    expect(ghost.body.errors[0].message).toBe('step "a" refers to unknown step "nope"');
    await refers('pipeline', [
      { id: 'a', kind: 'tool', tool: 'echo', arguments: { text: '{{input}}' } },
      { id: 'b', kind: 'tool', tool: 'echo', arguments: { text: '{{steps.a.output}}!' } },
    ]).expect(200);
  });

  it('answers 404 for an unknown agent and 400 for a graph run that names a session', async () => {
    await put('later', pipeline).expect(200);
    const session = await request(gateway.url)
      .post('/v1/agent/run')
      .set(auth)
      .send({ tenant_id: 'acme', agent: 'later', prompt: 'go', session_id: 's1' })
      .expect(400);
    expect(session.body.errors).toEqual([
      { path: 'session_id', message: 'graph agents do not continue sessions' },
    ]);
    await request(gateway.url)
      .post('/v1/agent/run')
      .set(auth)
      .send({ tenant_id: 'acme', agent: 'ghost', prompt: 'go' })
      .expect(404);
  });
});
