import { beforeAll, describe, expect, it } from '@jest/globals';
import type { Type } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, validateSync } from 'class-validator';
import fc from 'fast-check';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fieldShape } from './dto/field-shapes.js';
import { passesValidation } from './fast-validation.js';

const SRC = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Every DTO module of the gateway (files under a `dto` folder). */
function dtoModules(dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return dtoModules(path);
    const isDto = /[/\\]dto[/\\]/.test(path) && path.endsWith('.ts') && !path.endsWith('.spec.ts');
    return isDto ? [path] : [];
  });
}

/** The pipe's options, as validation.pipe.ts gives them to class-validator. */
const OPTIONS = { whitelist: true, forbidNonWhitelisted: true, stopAtFirstError: false };

/** Values a field may be sent: the plausible and the wrong. */
const leaf = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.constantFrom('acme', 'default', 'hello', 'user', 'assistant', 'todo', 'http://127.0.0.1:9/x'),
  fc.string({ maxLength: 6 }),
  fc.string({ minLength: 200, maxLength: 300 }),
  fc.integer({ min: -3, max: 400 }),
  fc.double({ noNaN: true }),
  fc.boolean(),
  fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }),
  fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 3 }),
);

/** A payload for `type`: any subset of its declared fields (nested ones as payloads too). */
function payload(type: Type, depth = 0): fc.Arbitrary<Record<string, unknown>> {
  const storage = getMetadataStorage();
  const names = Object.keys(
    storage.groupByPropertyName(storage.getTargetValidationMetadatas(type, '', false, false)),
  );
  const fields: Record<string, fc.Arbitrary<unknown>> = {};
  for (const name of names) {
    const nested = fieldShape(type, name)?.nested;
    if (nested && depth < 2) {
      const inner = payload(nested(), depth + 1);
      fields[name] = fc.oneof(leaf, inner, fc.array(fc.oneof(inner, leaf), { maxLength: 3 }));
    } else {
      fields[name] = leaf;
    }
  }
  return fc
    .record(fields, { requiredKeys: [] })
    .chain((body) =>
      fc.oneof(
        { weight: 9, arbitrary: fc.constant(body) },
        { weight: 1, arbitrary: fc.constant({ ...body, unexpected: 1 }) },
      ),
    );
}

describe('passesValidation', () => {
  let dtos: Type[] = [];

  beforeAll(async () => {
    for (const path of dtoModules()) {
      const module = (await import(path)) as Record<string, unknown>;
      for (const value of Object.values(module)) {
        if (typeof value !== 'function') continue;
        const rules = getMetadataStorage().getTargetValidationMetadatas(value, '', false, false);
        if (rules.length > 0) dtos.push(value as Type);
      }
    }
    dtos = [...new Set(dtos)];
  });

  it('finds the DTOs', () => {
    expect(dtos.length).toBeGreaterThan(25);
  });

  it('never passes what class-validator refuses, for every DTO', () => {
    let passed = 0;
    for (const dto of dtos) {
      fc.assert(
        fc.property(payload(dto), (body) => {
          let instance: object;
          try {
            instance = plainToInstance(dto, body) as object;
          } catch {
            return; // class-transformer refuses it (the pipe answers 400 before validating)
          }
          if (!passesValidation(instance)) return;
          passed++;
          expect(validateSync(instance, OPTIONS)).toEqual([]);
        }),
        { numRuns: 300 },
      );
    }
    // The random bodies include valid ones: the comparison is not vacuous.
    expect(passed).toBeGreaterThan(100);
  });

  it('passes the bodies the gateway is sent most (the fast path is taken)', () => {
    // Found among the DTO modules read above (the platform names no feature's module).
    const dto = (name: string) => dtos.find((type) => type.name === name)!;
    const [RunAgentDto, CallToolDto, AgentSpecDto] = [
      'RunAgentDto',
      'CallToolDto',
      'PutAgentDto',
    ].map(dto);
    const bodies: Array<[Type, object]> = [
      [RunAgentDto, { tenant_id: 'acme', prompt: 'hello' }],
      [
        RunAgentDto,
        {
          tenant_id: 'acme',
          messages: [{ role: 'user', content: 'hi' }],
          run_id: 'r-1',
          max_turns: 3,
          stream: true,
          metadata: { a: 1 },
          webhook: 'https://example.com/hook',
        },
      ],
      [CallToolDto, { tenant_id: 'acme', arguments: { text: 'hi' } }],
      [
        AgentSpecDto,
        {
          tenant_id: 'acme',
          topology: 'pipeline',
          steps: [{ id: 'a', kind: 'tool', tool: 'echo', arguments: { text: 'x' } }],
        },
      ],
    ];
    for (const [dto, body] of bodies) {
      const instance = plainToInstance(dto, body) as object;
      expect({ dto: dto.name, errors: validateSync(instance, OPTIONS) }).toEqual({
        dto: dto.name,
        errors: [],
      });
      expect({ dto: dto.name, fast: passesValidation(instance) }).toEqual({
        dto: dto.name,
        fast: true,
      });
    }
  });

  it('leaves a plain object and a class without rules to class-validator', () => {
    expect(passesValidation({ tenant_id: 'acme' })).toBe(false);
    class Bare {}
    expect(passesValidation(new Bare())).toBe(false);
  });
});
