import { DEFAULT_TOOLSET } from '../tool.limits.js';
import type { BuiltinToolset, ToolResult } from './builtin-tool.types.js';
import { MAX_EXPRESSION_LENGTH, calculate } from './calculator.js';
import { currentTime } from './current-time.js';

const fail = (error: string): ToolResult => ({ result: error, isError: true });

/** Toolset `default`: small pure tools every tenant has. None changes anything or goes outside. */
export const DEFAULT_BUILTINS: BuiltinToolset = {
  name: DEFAULT_TOOLSET,
  tools: [
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
      hints: {
        title: 'Echo',
        readOnly: true,
        destructive: false,
        idempotent: true,
        openWorld: false,
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
      hints: {
        title: 'Current time',
        readOnly: true,
        destructive: false,
        idempotent: false,
        openWorld: false,
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
      hints: {
        title: 'Calculator',
        readOnly: true,
        destructive: false,
        idempotent: true,
        openWorld: false,
      },
      run: (args) => {
        const outcome = calculate(args.expression as string);
        return outcome.ok ? { result: outcome.value, isError: false } : fail(outcome.error);
      },
    },
  ],
};
