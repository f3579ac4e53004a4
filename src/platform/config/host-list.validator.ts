import { ValidateBy, type ValidationArguments } from 'class-validator';
import { allowEntryProblem } from '../http/egress-allow-list.js';

function firstProblem(value: unknown): string | null {
  if (typeof value !== 'string') return 'must be a string';
  for (const entry of value.split(',')) {
    const problem = allowEntryProblem(entry);
    if (problem) return problem;
  }
  return null;
}

/**
 * A comma-separated destination allow list (see AllowList): host names, `*.suffix` patterns, IP
 * addresses, CIDRs or `*`. The message names the first bad entry.
 */
export const IsHostAllowList = () =>
  ValidateBy({
    name: 'isHostAllowList',
    validator: {
      validate: (value: unknown) => firstProblem(value) === null,
      defaultMessage: (args?: ValidationArguments) =>
        `must be a comma-separated list of host names, *.suffix patterns, IP addresses, CIDRs or *: ${firstProblem(args?.value) ?? ''}`,
    },
  });
