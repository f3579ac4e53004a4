import { describe, expect, it } from '@jest/globals';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Max, Min, ValidateNested } from 'class-validator';
import { IfPresent } from '../http/dto/if-present.js';
import { Nested, NestedArray } from '../http/dto/nested.js';
import { DtoSchemas } from './dto-schemas.js';

class Leaf {
  @IsString() name!: string;
}

class Tree {
  @Max(10) @Min(1) @IsInt() depth!: number;
  @IfPresent() @IsIn(['a', 'b']) kind?: 'a' | 'b';
  @IsOptional() @IsString() note?: string | null;
  @NestedArray(() => Leaf, { max: 5 }) leaves!: Leaf[];
  @IfPresent() @Nested(() => Tree) parent?: Tree;
  @IsOptional() @ValidateNested() @Type(() => Leaf) best?: Leaf | null;
}

/** Another class that happens to be named Leaf. */
const OtherLeaf = (() => {
  class Leaf {
    @IsInt() size!: number;
  }
  return Leaf;
})();

describe('DtoSchemas', () => {
  it('reads types, bounds, enums, optional and nullable fields from the validation rules', () => {
    const dtos = new DtoSchemas();
    expect(dtos.ref(Tree)).toEqual({ $ref: '#/components/schemas/Tree' });
    expect(dtos.components.Tree).toEqual({
      type: 'object',
      additionalProperties: false,
      required: ['depth', 'leaves'],
      properties: {
        depth: { type: 'integer', minimum: 1, maximum: 10 },
        kind: { type: 'string', enum: ['a', 'b'] },
        note: { type: ['string', 'null'] },
        leaves: { type: 'array', maxItems: 5, items: { $ref: '#/components/schemas/Leaf' } },
        parent: { type: 'object', $ref: '#/components/schemas/Tree' },
        best: { anyOf: [{ $ref: '#/components/schemas/Leaf' }, { type: 'null' }] },
      },
    });
    expect(dtos.components.Leaf).toMatchObject({ required: ['name'] });
  });

  it('gives a second class of a taken name its own component', () => {
    const dtos = new DtoSchemas();
    dtos.ref(Leaf);
    expect(dtos.ref(OtherLeaf)).toEqual({ $ref: '#/components/schemas/Leaf2' });
    expect(dtos.ref(Leaf)).toEqual({ $ref: '#/components/schemas/Leaf' });
    expect(dtos.components.Leaf2).toMatchObject({ properties: { size: { type: 'integer' } } });
  });

  it('tells DTO classes from primitives and classes without rules', () => {
    class Plain {
      value = 1;
    }
    expect([Tree, String, Object, Plain, undefined].map((t) => DtoSchemas.describes(t))).toEqual([
      true,
      false,
      false,
      false,
      false,
    ]);
  });
});
