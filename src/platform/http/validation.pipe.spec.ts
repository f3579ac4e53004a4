import { describe, expect, it } from '@jest/globals';
import { Type } from 'class-transformer';
import { IsInt, IsObject, IsString, MaxLength, ValidateNested } from 'class-validator';
import { BoundedArray } from './dto/bounded-array.js';
import { TenantId } from './dto/identifier.js';
import { IfPresent } from './dto/if-present.js';
import { Nested, NestedArray } from './dto/nested.js';
import { RawJson } from './dto/raw-json.js';
import { ProblemException, ValidationProblem } from './problem.js';
import { MAX_STRUCTURED_VALUES } from './validation-input.js';
import { createValidationPipe } from './validation.pipe.js';

class ItemDto {
  @IsString() name!: string;
  @IfPresent() @IsInt() size?: number;
}

class EndpointDto {
  @IsString() url!: string;
}

class TreeDto {
  @IsString() label!: string;
  @IfPresent() @Nested(() => TreeDto) child?: TreeDto;
}

class PlainItem {
  @IsString() name!: string;
}

class BodyDto {
  @TenantId() tenant_id!: string;
  @IfPresent() @IsString() @MaxLength(100) prompt?: string;
  @IfPresent() @NestedArray(() => ItemDto, { max: 10 }) items?: ItemDto[];
  @IfPresent() @BoundedArray(10) @IsString({ each: true }) tags?: string[];
  @IfPresent() @Nested(() => EndpointDto) endpoint?: EndpointDto;
  @IfPresent() @IsObject() @RawJson() metadata?: Record<string, unknown>;
  @IfPresent() @Nested(() => TreeDto) tree?: TreeDto;
  /** A plain `@ValidateNested` no project decorator describes (as in older DTOs). */
  @IfPresent() @ValidateNested({ each: true }) @Type(() => PlainItem) plain?: PlainItem[];
}

const pipe = createValidationPipe(64);
const transform = (body: unknown) => pipe.transform(body, { type: 'body', metatype: BodyDto });

async function problemOf(body: unknown): Promise<ProblemException> {
  const error = await transform(body).then(
    () => new Error('expected a problem'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProblemException);
  return error as ProblemException;
}

/** Items whose every property read is counted: the pipe must not read them. */
function trappedItems(count: number, reads: { n: number }): unknown[] {
  return Array.from({ length: count }, () => {
    const item = {};
    Object.defineProperty(item, 'name', {
      enumerable: true,
      get: () => {
        reads.n++;
        return 'x';
      },
    });
    return item;
  });
}

describe('the validation pipe', () => {
  it('turns a valid body into the DTO, free-form values handed over as they came', async () => {
    const metadata = { toString: 1, constructor: 'kept', nested: [{ valueOf: 2 }] };
    const dto = (await transform({
      tenant_id: 'ta',
      items: [{ name: 'a', size: 1 }],
      endpoint: { url: 'u' },
      metadata,
      plain: [{ name: 'p' }],
    })) as BodyDto;
    expect(dto).toBeInstanceOf(BodyDto);
    expect(dto.items?.[0]).toBeInstanceOf(ItemDto);
    expect(dto.endpoint).toBeInstanceOf(EndpointDto);
    expect(dto.plain?.[0]).toBeInstanceOf(PlainItem);
    expect(dto.metadata).toBe(metadata);
  });

  it('refuses an array over its maximum before reading any item', async () => {
    const reads = { n: 0 };
    const problem = await problemOf({ tenant_id: 'ta', items: trappedItems(60_000, reads) });
    expect(problem.errors).toEqual([
      { path: 'items', message: 'items must contain no more than 10 elements' },
    ]);
    expect(reads.n).toBe(0);

    const tags = await problemOf({ tenant_id: 'ta', tags: Array<number>(200_000).fill(0) });
    expect(tags.errors).toEqual([
      { path: 'tags', message: 'tags must contain no more than 10 elements' },
    ]);
  });

  it('refuses an array where a nested object belongs (and the reverse) before validating items', async () => {
    const single = await problemOf({ tenant_id: 'ta', endpoint: Array<number>(100_000).fill(0) });
    expect(single.errors).toEqual([{ path: 'endpoint', message: 'endpoint must be an object' }]);
    const inList = await problemOf({ tenant_id: 'ta', items: [{ name: 'a' }, [1, 2, 3]] });
    expect(inList.errors).toEqual([
      { path: 'items[1]', message: 'each item of items must be an object' },
    ]);
    const wide = Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`k${i}`, i]));
    expect((await problemOf({ tenant_id: 'ta', items: wide })).errors).toEqual([
      { path: 'items', message: 'items must be an array' },
    ]);
    expect((await problemOf({ tenant_id: 'ta', endpoint: [] })).errors).toContainEqual({
      path: 'endpoint',
      message: 'endpoint must be an object',
    });
  });

  it('treats null as a value, not as absent', async () => {
    for (const field of ['prompt', 'items', 'tags', 'endpoint', 'metadata']) {
      const problem = await problemOf({ tenant_id: 'ta', [field]: null });
      expect(problem.errors?.map((e) => e.path)).toContain(field);
    }
  });

  it('checks a huge value where a string belongs without walking it', async () => {
    const problem = await problemOf({ tenant_id: 'ta', prompt: Array<number>(500_000).fill(0) });
    expect(problem.errors?.every((e) => e.path === 'prompt')).toBe(true);
  });

  it('reports unknown fields with the other field errors, at most 20 in all', async () => {
    const few = await problemOf({ tenant_id: 7, surprise: 1, items: [{ name: 'a', odd: 2 }] });
    expect(few.errors?.map((e) => e.path).sort()).toEqual(
      expect.arrayContaining(['items[0].odd', 'surprise', 'tenant_id']),
    );

    const body: Record<string, unknown> = { tenant_id: 'ta' };
    for (let i = 0; i < 50_000; i++) body[`f${i}`] = i;
    const many = await problemOf(body);
    expect(many.errors).toHaveLength(20);
    expect(many.errors?.[0]).toEqual({ path: 'f0', message: 'property f0 should not exist' });
    expect(many.message).toMatch(/\(49980 more errors not listed\)$/);
    expect((many as ValidationProblem).total).toBe(50_000);
  });

  it('caps the error list of a body with many invalid items', async () => {
    const items = Array.from({ length: 10 }, () => ({ name: 1, size: 'x', extra: true }));
    const problem = await problemOf({ tenant_id: 'ta', items });
    expect(problem.errors).toHaveLength(20);
    expect(problem.message).toMatch(/more errors not listed\)$/);
  });

  it('bounds what a nested field no project decorator describes may hold', async () => {
    const plain = Array.from({ length: MAX_STRUCTURED_VALUES + 1 }, () => ({ name: 'p' }));
    const problem = await problemOf({ tenant_id: 'ta', plain });
    expect(problem.errors).toEqual([
      { path: 'plain', message: `the request holds more than ${MAX_STRUCTURED_VALUES} values` },
    ]);
    // Still validated as its class.
    const typed = await problemOf({ tenant_id: 'ta', plain: [{ name: 3 }] });
    expect(typed.errors).toEqual([{ path: 'plain[0].name', message: 'name must be a string' }]);
  });

  it('refuses DTOs nested deeper than the limit before class-transformer recurses', async () => {
    let tree: Record<string, unknown> = { label: 'leaf' };
    for (let i = 0; i < 100; i++) tree = { label: `n${i}`, child: tree };
    const problem = await problemOf({ tenant_id: 'ta', tree });
    expect(problem.slug).toBe('json-too-deep');
    expect(problem.getStatus()).toBe(400);
  });

  it('refuses an array where the body object belongs', async () => {
    const problem = await problemOf(Array.from({ length: 10_000 }, () => ({ tenant_id: 'ta' })));
    expect(problem.errors).toEqual([{ path: '', message: 'the request must be a JSON object' }]);
  });

  it('leaves the caller’s body as it was', async () => {
    const body = { tenant_id: 'ta', items: [{ name: 'a' }], endpoint: { url: 'u' } };
    const before = JSON.stringify(body);
    await transform(body);
    expect(JSON.stringify(body)).toBe(before);
  });
});
