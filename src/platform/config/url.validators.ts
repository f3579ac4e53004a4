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

/** A PostgreSQL connection URL: postgres://user@host:port/database. */
export const IsPostgresDsn = urlValidator(
  'isPostgresDsn',
  ['postgres:', 'postgresql:'],
  'must be a postgres:// or postgresql:// connection URL with a host',
);
