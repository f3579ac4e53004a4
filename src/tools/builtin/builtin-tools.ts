import { Injectable } from '@nestjs/common';
import type { JsonValue } from '../../state/state-store.js';
import { type ArgumentsValidator, SchemaValidator } from '../schema-validator.js';
import type { ToolSpec } from '../tool.types.js';
import { MAX_EXPRESSION_LENGTH, calculate } from './calculator.js';
import { currentTime } from './current-time.js';

export interface ToolResult {
  result: JsonValue;
  isError: boolean;
}

/** A tool implemented in the gateway; `run` gets arguments already valid against its schema. */
export interface BuiltinTool {
  spec: ToolSpec;
  run(args: { [key: string]: JsonValue }): ToolResult;
}

const fail = (error: string): ToolResult => ({ result: error, isError: true });

const BUILTINS: BuiltinTool[] = [
  {
    spec: {
      name: 'echo',
      description: 'Returns the given text unchanged.',
      parameters: {
        type: 'object',
        properties: { text: { type: 'string', description: 'The text to return.' } },
        required: ['text'],
        additionalProperties: false,
      },
    },
    run: (args) => ({ result: args.text, isError: false }),
  },
  {
    spec: {
      name: 'current_time',
      description: 'The current date and time (ISO-8601) in a time zone, UTC by default.',
      parameters: {
        type: 'object',
        properties: {
          timezone: {
            type: 'string',
            maxLength: 64,
            description: 'An IANA time zone name such as Europe/Paris or America/New_York.',
          },
        },
        additionalProperties: false,
      },
    },
    run: (args) => {
      const now = currentTime(args.timezone as string | undefined);
      return now.ok
        ? { result: { time: now.time, timezone: now.timezone }, isError: false }
        : fail(now.error);
    },
  },
  {
    spec: {
      name: 'calculator',
      description:
        'Evaluates an arithmetic expression: numbers, + - * / % ** and parentheses, ' +
        'sqrt abs min max round floor ceil, and the constants pi and e.',
      parameters: {
        type: 'object',
        properties: {
          expression: {
            type: 'string',
            minLength: 1,
            maxLength: MAX_EXPRESSION_LENGTH,
            description: 'For example 2*(3+4) or sqrt(2)/2.',
          },
        },
        required: ['expression'],
        additionalProperties: false,
      },
    },
    run: (args) => {
      const outcome = calculate(args.expression as string);
      return outcome.ok ? { result: outcome.value, isError: false } : fail(outcome.error);
    },
  },
];

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    Object.values(value).forEach(deepFreeze);
    Object.freeze(value);
  }
  return value;
}

/**
 * The built-in tools of toolset `default`, for every tenant. Code, not state: they exist without
 * any registration and cannot be replaced or deleted. Schemas are compiled once, at startup.
 */
@Injectable()
export class BuiltinTools {
  private readonly tools = new Map<string, BuiltinTool & { validate: ArgumentsValidator }>();

  constructor(validator: SchemaValidator) {
    for (const tool of BUILTINS) {
      // Frozen: the specs are handed to every caller (and on to model providers) by reference.
      deepFreeze(tool.spec);
      this.tools.set(tool.spec.name, {
        ...tool,
        validate: validator.compile(tool.spec.parameters),
      });
    }
  }

  get specs(): ToolSpec[] {
    return [...this.tools.values()].map((tool) => tool.spec);
  }

  get(name: string): (BuiltinTool & { validate: ArgumentsValidator }) | undefined {
    return this.tools.get(name);
  }
}
