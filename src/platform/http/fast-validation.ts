import {
  type ValidationArguments,
  ValidationTypes,
  type ValidatorConstraintInterface,
  getMetadataStorage,
} from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata.js';

/** One rule of a property: class-validator's own check, with what it is called with. */
interface Rule {
  checks: ValidatorConstraintInterface[];
  constraints: unknown[];
  each: boolean;
  validateIf?: (object: object, value: unknown) => boolean;
}

interface PropertyRules {
  name: string;
  conditions: Array<(object: object, value: unknown) => boolean>;
  rules: Rule[];
  nested: boolean;
}

interface ClassRules {
  properties: PropertyRules[];
  known: ReadonlySet<string>;
}

/** null: a class with a rule this does not follow (async, promise): class-validator decides. */
const COMPILED = new Map<object, ClassRules | null>();

/**
 * Whether class-validator would find no error in `object` (a DTO instance), decided without
 * building its errors: the same rules (class-validator's metadata and its own check functions),
 * run in the same order of conditions, but stopping at the first failure. It only ever says
 * `true` when class-validator's `validate` answers no error with the validation pipe's options
 * (whitelist, forbidNonWhitelisted, no groups, no skipping); `false` means "ask
 * class-validator", which then says what is wrong. A request that passes costs a few property
 * reads instead of an error object per field and a metadata lookup per object (about half of
 * the pipe's time per valid body, measured).
 */
export function passesValidation(object: object): boolean {
  const rules = rulesOf(object.constructor);
  if (!rules) return false;
  // forbidNonWhitelisted: an undeclared own property is an error.
  for (const key of Object.keys(object)) if (!rules.known.has(key)) return false;
  const target = object as Record<string, unknown>;
  for (const property of rules.properties) {
    const value = target[property.name];
    if (value instanceof Promise) return false;
    if (!passes(object, property, value)) return false;
  }
  return true;
}

function passes(object: object, property: PropertyRules, value: unknown): boolean {
  for (const condition of property.conditions) if (!condition(object, value)) return true;
  if (property.rules.length > 0) {
    const args: ValidationArguments = {
      targetName: object.constructor.name,
      property: property.name,
      object,
      value,
      constraints: [],
    };
    for (const rule of property.rules) {
      if (rule.validateIf && !rule.validateIf(object, value)) continue;
      args.constraints = rule.constraints;
      const items =
        rule.each && (Array.isArray(value) || value instanceof Set || value instanceof Map)
          ? Array.from(value instanceof Map ? value.values() : value)
          : [value];
      for (const check of rule.checks) {
        for (const item of items) {
          // Anything but `true` (a promise, a truthy value) is left to class-validator.
          if (check.validate(item, args) !== true) return false;
        }
      }
    }
  }
  return !property.nested || value === undefined || nestedPasses(value);
}

/** As class-validator's nestedValidations: every item of a collection, or the object itself. */
function nestedPasses(value: unknown): boolean {
  if (Array.isArray(value) || value instanceof Set || value instanceof Map) {
    for (const item of value instanceof Map ? value.values() : value) {
      if (!nestedPasses(item)) return false;
    }
    return true;
  }
  return value instanceof Object && passesValidation(value);
}

function rulesOf(type: object): ClassRules | null {
  let rules = COMPILED.get(type);
  if (rules === undefined) {
    rules = compile(type as new () => object);
    COMPILED.set(type, rules);
  }
  return rules;
}

function compile(type: new () => object): ClassRules | null {
  const storage = getMetadataStorage();
  const metadata = storage.getTargetValidationMetadatas(type, '', false, false);
  // forbidUnknownValues: an object of a class without rules is an error.
  if (metadata.length === 0) return null;
  const byName = storage.groupByPropertyName(metadata);
  const properties: PropertyRules[] = [];
  for (const [name, items] of Object.entries(byName)) {
    const property: PropertyRules = { name, conditions: [], rules: [], nested: false };
    // class-validator checks isDefined before the others; the order changes nothing else here.
    const ordered = [
      ...items.filter((item) => item.type === ValidationTypes.IS_DEFINED),
      ...items.filter((item) => item.type !== ValidationTypes.IS_DEFINED),
    ];
    for (const item of ordered) {
      if (!add(property, item, storage)) return null;
    }
    properties.push(property);
  }
  return { properties, known: new Set(Object.keys(byName)) };
}

function add(
  property: PropertyRules,
  item: ValidationMetadata,
  storage: ReturnType<typeof getMetadataStorage>,
): boolean {
  switch (item.type) {
    case ValidationTypes.WHITELIST:
      return true;
    case ValidationTypes.CONDITIONAL_VALIDATION:
      property.conditions.push(item.constraints[0] as (object: object, value: unknown) => boolean);
      return true;
    case ValidationTypes.NESTED_VALIDATION:
      property.nested = true;
      return true;
    case ValidationTypes.IS_DEFINED:
    case ValidationTypes.CUSTOM_VALIDATION: {
      const constraints = storage.getTargetValidatorConstraints(item.constraintCls);
      if (constraints.length === 0 || constraints.some((constraint) => constraint.async)) {
        return false;
      }
      property.rules.push({
        checks: constraints.map((constraint) => constraint.instance),
        constraints: item.constraints,
        each: item.each === true,
        validateIf: item.validateIf as Rule['validateIf'],
      });
      return true;
    }
    default:
      // Promise validation, or a kind this does not know: class-validator decides.
      return false;
  }
}
