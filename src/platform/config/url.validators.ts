import { ValidationOptions, registerDecorator } from 'class-validator';

function parseUrl(value: unknown): URL | null {
  if (typeof value !== 'string') return null;
  try {
    return new URL(value);
  } catch {
    return null;
  }
}

function urlValidator(
  name: string,
  protocols: readonly string[],
  message: string,
): (options?: ValidationOptions) => PropertyDecorator {
  return (options) => (target, propertyName) =>
    registerDecorator({
      name,
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message, ...options },
      validator: {
        validate(value: unknown) {
          const url = parseUrl(value);
          return url !== null && protocols.includes(url.protocol) && url.hostname !== '';
        },
      },
    });
}

/** An absolute http:// or https:// URL with a host. */
export const IsHttpUrl = urlValidator(
  'isHttpUrl',
  ['http:', 'https:'],
  'must be an absolute http:// or https:// URL',
);

const POSTGRES_PROTOCOLS = ['postgres:', 'postgresql:'];

/** A PostgreSQL connection URL: postgres://user@host:port/database. */
export const IsPostgresDsn = urlValidator(
  'isPostgresDsn',
  POSTGRES_PROTOCOLS,
  'must be a postgres:// or postgresql:// connection URL with a host',
);

/** `scheme://…`: a value that names a database server rather than a file. */
const HAS_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;

/** Whether a valid SVC_BOARD_DB value is a PostgreSQL connection URL (else it is a file path). */
export function isPostgresUrl(value: string): boolean {
  return HAS_SCHEME.test(value) && POSTGRES_PROTOCOLS.includes(new URL(value).protocol);
}

/**
 * SVC_BOARD_DB: a PostgreSQL connection URL, or a sqlite file path. A value with another
 * `scheme://` (or a postgres URL without a host) is refused rather than taken for a file name.
 */
export function IsBoardDatabase(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isBoardDatabase',
      target: target.constructor,
      propertyName: String(propertyName),
      options: {
        message: 'must be a file path or a postgres:// or postgresql:// connection URL with a host',
        ...options,
      },
      validator: {
        validate(value: unknown) {
          if (typeof value !== 'string') return false;
          if (!HAS_SCHEME.test(value)) return true;
          const url = parseUrl(value);
          return url !== null && POSTGRES_PROTOCOLS.includes(url.protocol) && url.hostname !== '';
        },
      },
    });
}
