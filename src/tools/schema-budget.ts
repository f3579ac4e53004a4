/**
 * The work meter of argument validation. JSON Schema validation is not linear in general (a
 * subschema reached through many `allOf` branches or `$ref`s is applied to the same value again
 * and again), so every step that costs something is counted in units before it runs: each
 * subschema applied to a value (the `$svcMeter` keyword put first into every subschema, see
 * schema-instrument.ts), each character a pattern or format reads, each value `uniqueItems`
 * hashes. A unit is about a nanosecond of work at worst. Over budget, the meter throws
 * ValidationBudgetExceeded before the step runs. It also stops a validation that has collected
 * more errors than anyone will read (ajv with allErrors would collect one per bad item).
 *
 * One meter per process: ajv's compiled code reaches it through its scope, and validation is
 * synchronous, so one validation runs at a time. Outside `run` nothing is counted (schema
 * compilation and the registration-time meta-schema check, whose input is bounded by size).
 */

/** Validating one value would cost more than its budget. */
export class ValidationBudgetExceeded extends Error {
  constructor() {
    super('validation work budget exceeded');
    this.name = 'ValidationBudgetExceeded';
  }
}

/** A validation collected more errors than its limit; `errors` holds the first ones. */
export class ValidationErrorOverflow extends Error {
  constructor(readonly errors: readonly unknown[]) {
    super('too many validation errors');
    this.name = 'ValidationErrorOverflow';
  }
}

/** Units one application of a subschema costs before its own keywords and the value's size. */
const VISIT_UNITS = 200;
/** Units per unit of a subschema's own weight (an enum member, a required name, a keyword). */
const WEIGHT_UNITS = 20;
/** Units per member, item or character of the value a subschema is applied to. */
const SIZE_UNITS = 20;

/** Members of an object, items of an array, characters of a string: what keywords walk over. */
function sizeOf(data: unknown): number {
  if (typeof data === 'string') return data.length;
  if (Array.isArray(data)) return data.length;
  if (data !== null && typeof data === 'object') {
    let count = 0;
    for (const key in data) if (Object.hasOwn(data, key)) count++;
    return count;
  }
  return 0;
}

export interface MeterLimits {
  /** Units the validation may spend (Infinity: uncounted, e.g. under a deadline instead). */
  budget: number;
  /** Errors it may collect. */
  maxErrors: number;
}

class ValidationMeter {
  private remaining = Number.POSITIVE_INFINITY;
  private maxErrors = Number.POSITIVE_INFINITY;
  private running = false;

  /** Runs `work` under `limits`. */
  run<T>(limits: MeterLimits, work: () => T): T {
    if (this.running) throw new Error('validations cannot nest');
    this.running = true;
    this.remaining = limits.budget;
    this.maxErrors = limits.maxErrors;
    try {
      return work();
    } finally {
      this.running = false;
      this.remaining = Number.POSITIVE_INFINITY;
      this.maxErrors = Number.POSITIVE_INFINITY;
    }
  }

  spend(units: number): void {
    this.remaining -= units;
    if (this.remaining < 0) throw new ValidationBudgetExceeded();
  }

  /**
   * One subschema applied to `data`; `weight` is what its own keywords cost (enum members,
   * required names, …). `errors` is the error list so far (ajv's `vErrors`).
   */
  visit(weight: number, data: unknown, errors: readonly unknown[] | null): void {
    this.spend(VISIT_UNITS + WEIGHT_UNITS * weight + SIZE_UNITS * sizeOf(data));
    if (errors !== null && errors.length > this.maxErrors) {
      throw new ValidationErrorOverflow(errors.slice(0, this.maxErrors));
    }
  }
}

export const validationMeter = new ValidationMeter();
