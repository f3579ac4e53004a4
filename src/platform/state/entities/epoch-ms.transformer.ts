import type { ValueTransformer } from 'typeorm';

/**
 * Timestamps are stored as epoch milliseconds (bigint) so one schema serves sqlite and PostgreSQL;
 * pg returns int8 as a string, sqlite as a number, both become a number here.
 */
export const epochMs: ValueTransformer = {
  to: (value: number | undefined) => value,
  from: (value: string | number | null) => (value === null ? null : Number(value)),
};
