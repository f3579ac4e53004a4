import type { CodeOptions } from 'ajv';
import { RE2JS, RE2JSException } from 're2js';
import { validationMeter } from './schema-budget.js';
import { type PatternFlags, PatternRefusal, toRe2Syntax } from './schema-regex.js';

/**
 * Largest automaton a tenant's pattern may compile to (RE2 instructions). Matching costs up to
 * this much per character in the worst case; `[a-z]{1,64}` is about 70, `.{0,500}` about 1,000.
 */
export const MAX_PATTERN_PROGRAM = 1000;

/** Fixed units of one match (setting the automaton up), whatever the input. */
const MATCH_UNITS = 1000;
/**
 * Units per character and instruction: RE2JS's DFA takes a few nanoseconds a character, its
 * NFA up to a few tens of nanoseconds a character and instruction.
 */
const STEP_UNITS = 25;
/**
 * Units per character of the gateway's own (format) expressions: anchored, close to
 * deterministic, so their DFA runs at a few nanoseconds a character whatever their size.
 */
const TRUSTED_CHARACTER_UNITS = 200;
/** Units of compiling a pattern again after it left the program cache, per instruction. */
const COMPILE_UNITS_PER_INSTRUCTION = 2000;

/**
 * Compiled programs are shared by every contract (a pattern means the same for everyone) and
 * bounded in number and in instructions: a contract holds a pattern's source, and compiles it
 * again if it was evicted. Each program's lazy DFA may hold DFA_MEMORY (RE2's own accounting;
 * RE2JS's default is 8 MB): past it the DFA starts over or gives way to the NFA, still linear.
 * Together these bound the memory that tenants' patterns can make the process hold.
 */
const PROGRAM_CACHE_ENTRIES = 1024;
const PROGRAM_CACHE_INSTRUCTIONS = 200_000;
const DFA_MEMORY = 32 * 1024;

type DfaBudget = { maxMem: number; stateBudget: number; memBudget: number };

/**
 * Caps the memory of a program's lazy DFA. RE2JS has no option for it, so this sets the DFA's
 * own budget fields (schema-patterns.spec.ts fails if an upgrade moves them).
 */
export function limitDfaMemory(compiled: RE2JS, bytes = DFA_MEMORY): void {
  const dfa = (compiled.re2() as unknown as { dfa?: Partial<DfaBudget> }).dfa;
  if (dfa && typeof dfa.memBudget === 'number' && typeof dfa.stateBudget === 'number') {
    dfa.maxMem = bytes;
    dfa.stateBudget = bytes;
    dfa.memBudget = Math.min(dfa.memBudget, bytes);
  }
}

class ProgramCache {
  private readonly programs = new Map<string, RE2JS>();
  private instructions = 0;

  get(key: string): RE2JS | undefined {
    const program = this.programs.get(key);
    if (program) {
      this.programs.delete(key);
      this.programs.set(key, program);
    }
    return program;
  }

  set(key: string, program: RE2JS): void {
    if (this.programs.has(key)) return;
    this.programs.set(key, program);
    this.instructions += program.programSize();
    for (const [oldest, evicted] of this.programs) {
      const full =
        this.programs.size > PROGRAM_CACHE_ENTRIES ||
        this.instructions > PROGRAM_CACHE_INSTRUCTIONS;
      if (!full || oldest === key) break;
      this.programs.delete(oldest);
      this.instructions -= evicted.programSize();
    }
  }
}

const programs = new ProgramCache();

function compileProgram(re2Source: string, dfaMemory = DFA_MEMORY): RE2JS {
  try {
    const compiled = RE2JS.compile(re2Source);
    limitDfaMemory(compiled, dfaMemory);
    return compiled;
  } catch (error) {
    if (!(error instanceof RE2JSException)) throw error;
    const reason = error.message.replace(/^error parsing regexp: /, '');
    throw new PatternRefusal(
      `cannot be evaluated by the linear-time pattern engine (RE2): ${reason}`,
    );
  }
}

/** A compiled pattern that matches in time linear in its input and charges the meter first. */
export interface LinearPattern {
  test(text: string): boolean;
  /** The automaton's size (instructions). */
  readonly size: number;
}

function matcher(size: number, perCharacter: number, program: () => RE2JS): LinearPattern {
  return {
    size,
    test(text: string): boolean {
      const compiled = program();
      validationMeter.spend(MATCH_UNITS + (text.length + 1) * perCharacter);
      return compiled.test(text);
    },
  };
}

/**
 * Compiles a tenant's ECMAScript pattern for RE2. Throws PatternRefusal when JavaScript rejects
 * it, RE2 cannot express it (lookaround, backreferences, …) or its automaton is too large.
 */
export function compileLinearPattern(source: string, flags: PatternFlags): LinearPattern {
  const re2Source = toRe2Syntax(source, flags);
  const first = programs.get(re2Source) ?? compileProgram(re2Source);
  const size = first.programSize();
  if (size > MAX_PATTERN_PROGRAM) {
    throw new PatternRefusal(
      `is too large for the linear-time pattern engine: ${size} automaton instructions ` +
        `(at most ${MAX_PATTERN_PROGRAM})`,
      size,
    );
  }
  programs.set(re2Source, first);
  return matcher(size, (size + 16) * STEP_UNITS, () => {
    let program = programs.get(re2Source);
    if (!program) {
      validationMeter.spend(COMPILE_UNITS_PER_INSTRUCTION * (size + 16));
      program = compileProgram(re2Source);
      programs.set(re2Source, program);
    }
    return program;
  });
}

/** Memory of the DFA of one of the gateway's own (format) expressions. */
const TRUSTED_DFA_MEMORY = 1024 * 1024;

/** Compiles one of the gateway's own expressions (no size limit; kept, not cached). */
export function compileTrustedPattern(source: string, flags: PatternFlags): LinearPattern {
  const program = compileProgram(toRe2Syntax(source, flags), TRUSTED_DFA_MEMORY);
  return matcher(program.programSize(), TRUSTED_CHARACTER_UNITS, () => program);
}

/**
 * ajv's `code.regExp`: `pattern` and `patternProperties` through RE2. ajv keys compiled
 * patterns by `toString()`, so it names the pattern and its flags.
 */
export const linearRegExp = Object.assign(
  (source: string, flags: string): { test(text: string): boolean; toString(): string } => {
    const pattern = compileLinearPattern(source, {
      unicode: flags.includes('u'),
      ignoreCase: flags.includes('i'),
    });
    return { test: (text: string) => pattern.test(text), toString: () => `/${source}/${flags}` };
  },
  // The source ajv would write for standalone code, which the gateway never generates.
  { code: 'linearRegExp' },
) satisfies NonNullable<CodeOptions['regExp']>;
