/**
 * Where a middleware for every request is mounted: Nest mounts the root path with Express's
 * `use()`, which matches any path without a pattern. A wildcard (`{*path}`) costs each request a
 * path-to-regexp match, its decoded segments and a prefix trim, per middleware.
 */
export const EVERY_ROUTE = '/';
