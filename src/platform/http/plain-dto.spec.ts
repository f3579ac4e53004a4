import { describe, expect, it } from '@jest/globals';
import { Expose, Transform, Type, plainToInstance } from 'class-transformer';
import { IsInt, IsString } from 'class-validator';
import { TenantId } from './dto/identifier.js';
import { IfPresent } from './dto/if-present.js';
import { Nested } from './dto/nested.js';
import { RawJson } from './dto/raw-json.js';
import { plainDto } from './plain-dto.js';
import { prepareInput, unboxInput } from './validation-input.js';

class EndpointDto {
  @IsString() url!: string;
}

class CallDto {
  @TenantId() tenant_id!: string;
  @IfPresent() @IsString() prompt?: string;
  @IfPresent() @IsInt() turns?: number;
  @IfPresent() @RawJson() arguments?: Record<string, unknown>;
  @IfPresent() @IsString({ each: true }) tags?: string[];
  @IfPresent() @Nested(() => EndpointDto) endpoint?: EndpointDto;
}

class ConvertingDto {
  @IsInt() @Type(() => Number) limit!: number;
  @IsString() @Transform(({ value }: { value: unknown }) => String(value).trim()) name!: string;
  @IsString() @Expose({ name: 'alias' }) exposed!: string;
}

class AccessorDto {
  @IsString() plain!: string;
  @IsString() get computed(): string {
    return 'from the class';
  }
}

/** What the pipe hands on: prepareInput's value, as class-transformer would make it a DTO. */
function viaClassTransformer<T extends object>(type: new () => T, body: unknown): T {
  const dto = plainToInstance<T, unknown>(type, prepareInput(body, type, 64).value);
  unboxInput(dto);
  return dto;
}

const prepared = (type: new () => object, body: unknown) => prepareInput(body, type, 64).value;

describe('plainDto', () => {
  it('makes the instance class-transformer makes of a DTO it would only copy', () => {
    const bodies = [
      { tenant_id: 'ta' },
      { tenant_id: 'ta', prompt: 'hello', turns: 3 },
      { tenant_id: 'ta', arguments: { text: 'hi', toString: 1, nested: [{ valueOf: 2 }] } },
      { tenant_id: 'ta', tags: ['a', 'b'], prompt: null },
      { tenant_id: 7, prompt: ['not', 'a', 'string'], turns: '3' },
    ];
    for (const body of bodies) {
      const dto = plainDto(CallDto, prepared(CallDto, body));
      expect(dto).toBeInstanceOf(CallDto);
      expect(dto).toEqual(viaClassTransformer(CallDto, body));
    }
  });

  it('hands free-form values over as they came, not copies', () => {
    const args = { text: 'hi' };
    const dto = plainDto(CallDto, prepared(CallDto, { tenant_id: 'ta', arguments: args }));
    expect((dto as CallDto).arguments).toBe(args);
  });

  it('leaves to class-transformer a payload with a nested DTO present', () => {
    const body = { tenant_id: 'ta', endpoint: { url: 'u' } };
    expect(plainDto(CallDto, prepared(CallDto, body))).toBeUndefined();
  });

  it('leaves to class-transformer the fields it converts, renames or has as accessors', () => {
    expect(plainDto(ConvertingDto, { limit: '5' })).toBeUndefined();
    expect(plainDto(ConvertingDto, { name: ' x ' })).toBeUndefined();
    expect(plainDto(ConvertingDto, { exposed: 'x' })).toBeUndefined();
    expect(plainDto(AccessorDto, { computed: 'x' })).toBeUndefined();
    expect(plainDto(AccessorDto, { plain: 'x' })).toEqual(
      viaClassTransformer(AccessorDto, { plain: 'x' }),
    );
  });

  it('makes nothing of a payload that is not an object', () => {
    for (const value of ['text', 42, null, undefined, ['a']]) {
      expect(plainDto(CallDto, value)).toBeUndefined();
    }
  });
});
