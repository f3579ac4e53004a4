import jsep from 'jsep';

export const MAX_EXPRESSION_LENGTH = 1000;

export type Calculation = { ok: true; value: number } | { ok: false; error: string };

/** A failure the caller should see as the tool's (error) result, not as a crash. */
class CalculationError extends Error {}

// Maps, not object literals: a name like `constructor` must never reach Object.prototype.
const CONSTANTS = new Map<string, number>([
  ['pi', Math.PI],
  ['e', Math.E],
]);

// `unary`: exactly one argument; otherwise at least one.
const FUNCTIONS = new Map<string, { unary: boolean; fn: (...args: number[]) => number }>([
  ['sqrt', { unary: true, fn: Math.sqrt }],
  ['abs', { unary: true, fn: Math.abs }],
  ['round', { unary: true, fn: Math.round }],
  ['floor', { unary: true, fn: Math.floor }],
  ['ceil', { unary: true, fn: Math.ceil }],
  ['min', { unary: false, fn: Math.min }],
  ['max', { unary: false, fn: Math.max }],
]);

const BINARY = new Map<string, (a: number, b: number) => number>([
  ['+', (a, b) => a + b],
  ['-', (a, b) => a - b],
  ['*', (a, b) => a * b],
  ['/', (a, b) => a / nonZero(b)],
  ['%', (a, b) => a % nonZero(b)],
  ['**', (a, b) => a ** b],
]);

function nonZero(divisor: number): number {
  if (divisor === 0) throw new CalculationError('division by zero');
  return divisor;
}

function unsupported(what: string): never {
  throw new CalculationError(`unsupported expression: ${what}`);
}

function evaluate(node: jsep.Expression): number {
  switch (node.type) {
    case 'Literal': {
      const { value, raw } = node as jsep.Literal;
      return typeof value === 'number' ? value : unsupported(`literal ${raw}`);
    }
    case 'Identifier': {
      const { name } = node as jsep.Identifier;
      return CONSTANTS.get(name) ?? unsupported(`unknown name "${name}"`);
    }
    case 'UnaryExpression': {
      const { operator, argument } = node as jsep.UnaryExpression;
      if (operator === '-') return -evaluate(argument);
      if (operator === '+') return evaluate(argument);
      return unsupported(`operator ${operator}`);
    }
    case 'BinaryExpression': {
      const { operator, left, right } = node as jsep.BinaryExpression;
      const apply = BINARY.get(operator);
      if (!apply) {
        unsupported(operator === '^' ? 'operator ^ (use ** for powers)' : `operator ${operator}`);
      }
      return apply(evaluate(left), evaluate(right));
    }
    case 'CallExpression':
      return call(node as jsep.CallExpression);
    default:
      return unsupported(node.type.replace(/Expression$/, '').toLowerCase() || node.type);
  }
}

function call({ callee, arguments: args }: jsep.CallExpression): number {
  const name = callee.type === 'Identifier' ? (callee as jsep.Identifier).name : undefined;
  const known = name === undefined ? undefined : FUNCTIONS.get(name);
  if (!known) {
    const functions = [...FUNCTIONS.keys()].join(', ');
    return unsupported(
      name === undefined
        ? `only ${functions} can be called`
        : `unknown function "${name}" (known: ${functions})`,
    );
  }
  if (known.unary ? args.length !== 1 : args.length === 0) {
    const wanted = known.unary ? 'one argument' : 'at least one argument';
    throw new CalculationError(`${name} takes ${wanted}`);
  }
  return known.fn(...args.map(evaluate));
}

/**
 * Evaluates an arithmetic expression without eval: jsep parses it, and only numbers, + - * / % **,
 * unary minus and plus, parentheses, a few Math functions and the constants pi and e are evaluated.
 */
export function calculate(expression: string): Calculation {
  if (expression.length > MAX_EXPRESSION_LENGTH) {
    return { ok: false, error: `expression longer than ${MAX_EXPRESSION_LENGTH} characters` };
  }
  if (expression.trim() === '') return { ok: false, error: 'the expression is empty' };
  let tree: jsep.Expression;
  try {
    tree = jsep(expression);
  } catch (error) {
    return { ok: false, error: `syntax error: ${(error as Error).message}` };
  }
  try {
    const value = evaluate(tree);
    if (!Number.isFinite(value)) return { ok: false, error: 'the result is not a finite number' };
    return { ok: true, value: Object.is(value, -0) ? 0 : value };
  } catch (error) {
    // A RangeError (stack overflow on absurd nesting) is an input problem too.
    if (error instanceof CalculationError || error instanceof RangeError) {
      return { ok: false, error: error.message };
    }
    throw error;
  }
}
