import { Ajv, type CodeKeywordDefinition, type Options, _ } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import { validationMeter } from './schema-budget.js';
import { constKeyword, enumKeyword } from './schema-equal.js';
import { linearStringFormats } from './schema-formats.js';
import { METER_KEYWORD } from './schema-instrument.js';
import { linearRegExp } from './schema-patterns.js';
import { uniqueItemsKeyword } from './schema-unique-items.js';

export type Dialect = 'draft-07' | '2019-09' | '2020-12';

export interface AjvPurpose {
  /** Collect every error (the 422's list) or stop at the first (the quick yes/no). */
  allErrors: boolean;
  /**
   * Checking tenants' schemas against the dialect's meta-schema. Without it the instance knows
   * no meta-schema at all, so a `$ref` can only reach the tenant's own schema (whose every
   * subschema carries the meter), never the uninstrumented meta-schemas.
   */
  metaSchemas: boolean;
}

/** Charges the meter each time the subschema it sits in is applied to a value. */
const meterKeyword = (first: string | undefined): CodeKeywordDefinition => ({
  keyword: METER_KEYWORD,
  schemaType: 'number',
  ...(first ? { before: first } : {}),
  code(cxt) {
    const meter = cxt.gen.scopeValue('obj', { ref: validationMeter });
    // vErrors: the error list of ajv's generated function, so the meter can cap it.
    cxt.gen.code(_`${meter}.visit(${cxt.schema as number}, ${cxt.data}, vErrors)`);
  },
});

/**
 * A fresh ajv for each compilation: an ajv instance keeps every `$id` it has seen in a registry
 * shared by later compilations, and one tenant's `$id` must never answer another tenant's `$ref`.
 * (Costs a few milliseconds, once per contract version.) Tenants send real-world schemas:
 * unknown keywords and formats are tolerated (strict: false), and nothing is coerced, defaulted
 * or removed from the arguments. Patterns, formats and `uniqueItems` are evaluated in linear time;
 * `const` and `enum` compare JSON values only (see schema-equal.ts).
 */
export function createAjv(dialect: Dialect, purpose: AjvPurpose): Ajv {
  const options: Options = {
    allErrors: purpose.allErrors,
    strict: false,
    logger: false,
    meta: purpose.metaSchemas,
    validateSchema: purpose.metaSchemas,
    // Every $ref target is compiled once, as a function: inlined, a definition referenced
    // 2,000 times is compiled 2,000 times (three times slower for a 64 KiB schema).
    inlineRefs: false,
    // ajv's optimisation passes make compiling a large schema about twice as slow, and the
    // generated code no faster once V8 has compiled it.
    code: { regExp: linearRegExp, optimize: false },
  };
  const ajv =
    dialect === '2020-12'
      ? new Ajv2020(options)
      : dialect === '2019-09'
        ? new Ajv2019(options)
        : new Ajv(options);
  formats.default(ajv);
  for (const [name, definition] of linearStringFormats()) ajv.addFormat(name, definition);
  ajv.removeKeyword('uniqueItems');
  ajv.addKeyword(uniqueItemsKeyword);
  const untyped = ajv.RULES.rules.find((group) => group.type === undefined);
  // In the place ajv's own held, so errors are listed in the same order.
  const untypedOrder = untyped?.rules.map((rule) => rule.keyword) ?? [];
  const next = untypedOrder[untypedOrder.indexOf('enum') + 1];
  for (const keyword of [constKeyword, enumKeyword]) {
    ajv.removeKeyword(keyword.keyword as string);
    ajv.addKeyword(next ? { ...keyword, before: next } : keyword);
  }
  // First among the keywords that apply to any type, so a visit is paid for before its work.
  ajv.addKeyword(meterKeyword(untyped?.rules[0]?.keyword));
  return ajv;
}
