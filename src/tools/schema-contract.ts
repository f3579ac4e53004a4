import type { AnySchemaObject, ErrorObject, ValidateFunction } from 'ajv';
import { type FieldError, ProblemException } from '../platform/http/problem.js';
import { createAjv, type Dialect } from './schema-ajv.js';
import {
  type MeterLimits,
  ValidationBudgetExceeded,
  ValidationErrorOverflow,
  validationMeter,
} from './schema-budget.js';
import { DeadlineExceeded, withDeadline } from './schema-deadline.js';
import { toFieldErrors } from './schema-errors.js';

/**
 * Work units of the first, unguarded attempt: about 5 ms at worst. Ordinary arguments need a
 * small fraction of it; larger ones are validated again under the deadline.
 */
export const QUICK_BUDGET = 5_000_000;
/**
 * Errors collected before validation stops. Where ajv may drop collected errors again (failing
 * `anyOf` branches of valid arguments), more must be weighed before the answer is known;
 * elsewhere the first error already decides, and a problem lists at most 20.
 */
const WEIGHED_ERRORS = 10_000;
const REPORTED_ERRORS = 100;

/**
 * Wall time compiling one schema may take. The bounds on a schema's size, depth and patterns
 * keep it to a few hundred milliseconds; this catches what they do not foresee.
 */
export const COMPILE_DEADLINE_MS = 2000;

/** 422 `arguments-too-complex`: validation was stopped before it could decide. */
export function argumentsTooComplex(reason: string): ProblemException {
  return new ProblemException(
    422,
    `the arguments cannot be validated against the tool's schema: ${reason}`,
    'arguments-too-complex',
  );
}

type Run = { valid: true } | { valid: false; errors: readonly ErrorObject[] };

/**
 * One compiled tool contract, validating arguments in bounded time (ajv with allErrors, the
 * schema instrumented by schema-instrument.ts). A pass first runs within the meter's budget;
 * when that is not enough (large but ordinary arguments, or a schema that multiplies work), it
 * runs again under a wall-clock deadline, past which the call is refused with 422
 * `arguments-too-complex`.
 */
export class CompiledContract {
  /**
   * Set once a deadline stopped ajv's code midway. Nothing it leaves behind is known to be
   * wrong, but the owner compiles the contract afresh rather than trust it.
   */
  stopped = false;

  private constructor(
    private readonly check: ValidateFunction,
    private readonly discardsErrors: boolean,
    private readonly deadlineMs: number,
  ) {}

  /**
   * Compiles an instrumented schema: throws what ajv throws for an unusable one, and
   * DeadlineExceeded past COMPILE_DEADLINE_MS (a 64 KiB schema takes a few hundred ms). A
   * `trusted` schema (the gateway's own built-ins, at startup) has no compile deadline: a
   * machine busy enough to stretch its compilation must not stop the process from starting.
   */
  static compile(
    dialect: Dialect,
    schema: AnySchemaObject,
    discardsErrors: boolean,
    deadlineMs: number,
    trusted = false,
  ): CompiledContract {
    const ajv = createAjv(dialect, { allErrors: true, metaSchemas: false });
    const check = trusted
      ? ajv.compile(schema)
      : withDeadline(COMPILE_DEADLINE_MS, () => ajv.compile(schema));
    if ('$async' in check) throw new Error('asynchronous schemas are not supported');
    return new CompiledContract(check, discardsErrors, deadlineMs);
  }

  /** The field errors of `value` (empty: valid). Throws ProblemException 422 when stopped. */
  validate(value: unknown): FieldError[] {
    const maxErrors = this.discardsErrors ? WEIGHED_ERRORS : REPORTED_ERRORS;
    let run: Run;
    try {
      try {
        run = this.attempt(value, { budget: QUICK_BUDGET, maxErrors });
      } catch (error) {
        if (!(error instanceof ValidationBudgetExceeded)) throw error;
        run = this.attempt(value, { budget: Number.POSITIVE_INFINITY, maxErrors }, this.deadlineMs);
      }
    } catch (error) {
      if (!(error instanceof ValidationErrorOverflow) || this.discardsErrors) {
        throw this.refusal(error);
      }
      run = { valid: false, errors: error.errors as ErrorObject[] };
    }
    return run.valid ? [] : toFieldErrors(run.errors);
  }

  private attempt(value: unknown, limits: MeterLimits, deadlineMs?: number): Run {
    return validationMeter.run(limits, () => {
      const valid =
        deadlineMs === undefined
          ? this.check(value)
          : withDeadline(deadlineMs, () => this.check(value));
      return valid ? { valid: true } : { valid: false, errors: this.check.errors ?? [] };
    });
  }

  /** What a validation that could not finish means for the caller. */
  private refusal(error: unknown): unknown {
    if (error instanceof DeadlineExceeded) {
      this.stopped = true;
      return argumentsTooComplex(`validation did not finish within ${error.ms} ms`);
    }
    if (error instanceof ValidationErrorOverflow) {
      return argumentsTooComplex(`more than ${WEIGHED_ERRORS} failing subschemas to weigh`);
    }
    if (error instanceof RangeError) return argumentsTooComplex('they nest too deeply');
    return error;
  }
}
