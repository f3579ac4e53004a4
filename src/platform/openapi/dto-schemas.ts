import type { Type } from '@nestjs/common';
import { IS_INT, IS_URL, MAX, MIN, ValidationTypes, getMetadataStorage } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata.js';
import { targetConstructorToSchema } from 'class-validator-jsonschema';
import { transformerMetadata } from '../http/dto/transformer-metadata.js';
import type { JsonSchema } from './openapi.types.js';

const COMPONENTS = '#/components/schemas/';

type Converter = ((meta: ValidationMetadata) => JsonSchema) | JsonSchema;

const PRIMITIVES = new Map<unknown, JsonSchema>([
  [String, { type: 'string' }],
  [Number, { type: 'number' }],
  [Boolean, { type: 'boolean' }],
]);

/** The class-validator rules of a class and of the classes it extends. */
function rulesOf(type: Type): ValidationMetadata[] {
  return getMetadataStorage().getTargetValidationMetadatas(type, '', true, false);
}

/**
 * JSON Schemas (2020-12) of the DTO classes, read from the class-validator rules and
 * class-transformer `@Type` metadata the validation pipe already checks against, so a DTO is
 * described without a second set of annotations and cannot drift from what is enforced. Each
 * class is one component; a nested DTO is a `$ref` to its own. Component names are the class
 * names; a second, different class of a name already taken gets a numeric suffix.
 */
export class DtoSchemas {
  private readonly names = new Map<Type, string>();
  private readonly schemas: Record<string, JsonSchema> = {};
  private readonly converters: Record<string, Converter> = {
    [ValidationTypes.NESTED_VALIDATION]: (meta) => this.nested(meta),
    // A custom rule says nothing about the shape beyond the declared primitive type.
    [ValidationTypes.CUSTOM_VALIDATION]: (meta) => this.declared(meta) ?? {},
    // The library's own add `type: number`, which would overwrite an `@IsInt`.
    [MIN]: (meta) => ({ minimum: constraint(meta) }),
    [MAX]: (meta) => ({ maximum: constraint(meta) }),
    [IS_URL]: { type: 'string', format: 'uri' },
  };

  /** Whether `type` is a class with validation rules (a DTO, not a primitive or an interface). */
  static describes(type: unknown): type is Type {
    return typeof type === 'function' && !PRIMITIVES.has(type) && rulesOf(type as Type).length > 0;
  }

  /** A reference to the component of `type`, which is described on first use. */
  ref(type: Type): JsonSchema {
    return { $ref: COMPONENTS + this.nameOf(type) };
  }

  /** The schema of `type` itself (its properties, for query and path parameters). */
  schemaOf(type: Type): JsonSchema {
    return this.schemas[this.nameOf(type)];
  }

  /** Every component described so far, by name. */
  get components(): Readonly<Record<string, JsonSchema>> {
    return this.schemas;
  }

  private nameOf(type: Type): string {
    const known = this.names.get(type);
    if (known !== undefined) return known;
    const base = /^[A-Za-z0-9._-]+$/.test(type.name) ? type.name : 'Dto';
    let name = base;
    for (let n = 2; name in this.schemas; n++) name = `${base}${n}`;
    this.names.set(type, name);
    // Taken before the class is read, so a DTO that nests itself ends in a $ref.
    this.schemas[name] = {};
    this.schemas[name] = this.describe(type);
    return name;
  }

  private describe(type: Type): JsonSchema {
    const schema = targetConstructorToSchema(type, {
      classTransformerMetadataStorage: transformerMetadata,
      refPointerPrefix: COMPONENTS,
      additionalConverters: this.converters,
    }) as JsonSchema;
    const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
    for (const rule of rulesOf(type)) {
      const property = properties[rule.propertyName];
      if (!property) continue;
      if (rule.type === IS_INT && !rule.each) property.type = 'integer';
      if (rule.name === 'isOptional') properties[rule.propertyName] = orNull(property);
    }
    // The validation pipe refuses fields the class does not declare (forbidNonWhitelisted).
    return { ...schema, additionalProperties: false };
  }

  private nested(meta: ValidationMetadata): JsonSchema {
    if (typeof meta.target !== 'function') return {};
    const declared = transformerMetadata.findTypeMetadata(meta.target, meta.propertyName);
    const child: unknown = declared
      ? declared.typeFunction()
      : Reflect.getMetadata('design:type', meta.target.prototype as object, meta.propertyName);
    if (DtoSchemas.describes(child)) return this.ref(child);
    return PRIMITIVES.get(child) ?? {};
  }

  private declared(meta: ValidationMetadata): JsonSchema | undefined {
    if (typeof meta.target !== 'function') return undefined;
    const type: unknown = Reflect.getMetadata(
      'design:type',
      meta.target.prototype as object,
      meta.propertyName,
    );
    return PRIMITIVES.get(type);
  }
}

function constraint(meta: ValidationMetadata): unknown {
  return (meta.constraints as unknown[])[0];
}

/** `@IsOptional` also lets `null` through: say so the JSON Schema 2020-12 way. */
function orNull(schema: JsonSchema): JsonSchema {
  if (typeof schema.type === 'string') return { ...schema, type: [schema.type, 'null'] };
  if (typeof schema.$ref === 'string') return { anyOf: [schema, { type: 'null' }] };
  return schema;
}
