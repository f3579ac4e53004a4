import { describe, expect, it } from '@jest/globals';
import { checkAgentGraph } from './agent-graph.check.js';
import type { PutAgentDto, StepDto } from './dto/agent-spec.dto.js';

const tools = (toolset: string) =>
  toolset === 'default' ? new Set(['echo', 'calculator']) : undefined;
const spec = (steps: Partial<StepDto>[], extra: Partial<PutAgentDto> = {}): PutAgentDto => ({
  tenant_id: 't',
  topology: 'pipeline',
  steps: steps as StepDto[],
  ...extra,
});
const tool = (id: string, depends_on?: string[]): Partial<StepDto> => ({
  id,
  kind: 'tool',
  tool: 'echo',
  depends_on,
});

describe('checkAgentGraph', () => {
  it('accepts a valid DAG', () => {
    expect(
      checkAgentGraph(spec([tool('a'), tool('b', ['a']), tool('c', ['a', 'b'])]), tools),
    ).toEqual([]);
  });

  it('names a duplicate id, an unknown dependency and a self-dependency', () => {
    expect(checkAgentGraph(spec([tool('a'), tool('a')]), tools)).toEqual([
      { path: 'steps[1].id', message: 'step id "a" is used twice' },
    ]);
    expect(checkAgentGraph(spec([tool('a'), tool('b', ['ghost'])]), tools)).toEqual([
      { path: 'steps[1].depends_on', message: 'step "b" depends on unknown step "ghost"' },
    ]);
    expect(checkAgentGraph(spec([tool('a', ['a'])]), tools)).toEqual([
      { path: 'steps[0].depends_on', message: 'step "a" depends on itself' },
    ]);
  });

  it('finds a cycle and names where it starts', () => {
    const errors = checkAgentGraph(
      spec([tool('a', ['c']), tool('b', ['a']), tool('c', ['b'])]),
      tools,
    );
    expect(errors).toEqual([
      { path: 'steps[0].depends_on', message: 'steps form a cycle: a → c → b → a' },
    ]);
  });

  it('requires known tools, toolsets, prompts for agent steps and a supervisor budget', () => {
    expect(checkAgentGraph(spec([{ id: 'a', kind: 'tool', tool: 'nope' }]), tools)).toEqual([
      { path: 'steps[0].tool', message: 'step "a": no tool "nope" in toolset "default"' },
    ]);
    expect(
      checkAgentGraph(spec([{ id: 'a', kind: 'tool', tool: 'echo', toolset: 'x' }]), tools),
    ).toEqual([{ path: 'steps[0].toolset', message: 'step "a": no toolset "x"' }]);
    expect(checkAgentGraph(spec([{ id: 'a', kind: 'agent' }]), tools)).toEqual([
      { path: 'steps[0].prompt', message: 'step "a" of kind agent needs a prompt' },
    ]);
    expect(checkAgentGraph(spec([tool('a')], { topology: 'supervisor' }), tools)).toEqual([
      { path: 'budget', message: 'a supervisor needs a numeric budget (steps)' },
    ]);
  });
});
