import { createRequire } from 'node:module';
import type * as Flexible from 'rate-limiter-flexible';

const require = createRequire(import.meta.url);

// rate-limiter-flexible's index requires every limiter it has (Redis, Mongo, Etcd, DynamoDB and
// more: 36 files, about 25 ms of a start); the in-memory one, the only one used, loads alone. Its
// own require of RateLimiterRes is this same file, so `instanceof` holds.
export const RateLimiterMemory =
  require('rate-limiter-flexible/lib/RateLimiterMemory.js') as typeof Flexible.RateLimiterMemory;
export type RateLimiterMemory = Flexible.RateLimiterMemory;
export const RateLimiterRes =
  require('rate-limiter-flexible/lib/RateLimiterRes.js') as typeof Flexible.RateLimiterRes;
