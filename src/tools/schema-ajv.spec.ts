import { describe, expect, it } from '@jest/globals';
import { createAjv } from './schema-ajv.js';
import { METER_KEYWORD } from './schema-instrument.js';

describe('createAjv', () => {
  for (const dialect of ['draft-07', '2019-09', '2020-12'] as const) {
    it(`${dialect}: the meter is the first keyword of every subschema`, () => {
      const ajv = createAjv(dialect, { allErrors: true, metaSchemas: false });
      const untyped = ajv.RULES.rules.find((group) => group.type === undefined);
      expect(untyped?.rules[0]?.keyword).toBe(METER_KEYWORD);
    });

    it(`${dialect}: without meta-schemas a $ref cannot reach one`, () => {
      const ajv = createAjv(dialect, { allErrors: true, metaSchemas: false });
      const uri =
        dialect === 'draft-07'
          ? 'http://json-schema.org/draft-07/schema#'
          : `https://json-schema.org/draft/${dialect}/schema`;
      expect(() => ajv.compile({ $ref: uri })).toThrow(/can't resolve reference/);
    });
  }
});
