/**
 * A configuration problem the operator must fix. The CLI prints `message` as one line and exits 2,
 * so the message names the variable and the problem and never carries a secret or a stack trace.
 */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}
