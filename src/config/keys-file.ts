import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { plainToInstance, Type } from 'class-transformer';
import {
  IsArray,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  MinLength,
  ValidateNested,
  ValidationError,
  validateSync,
} from 'class-validator';
import { ConfigError } from './config-error.js';

const ID = { message: 'must be a string of 1 to 128 characters' };
const ROLES = { message: 'must be an array of role names' };

class KeyEntry {
  @IsString(ID) @MinLength(1, ID) @MaxLength(128, ID) id!: string;
  @IsOptional()
  @Matches(/^[0-9a-fA-F]{64}$/, { message: 'must be 64 hex characters' })
  key_sha256?: string;
  @IsOptional()
  @IsString({ message: 'must be a string' })
  @MinLength(8, { message: 'must be at least 8 characters long' })
  key?: string;
  @IsOptional() @IsString(ID) @MinLength(1, ID) @MaxLength(128, ID) tenant_id?: string;
  @IsArray(ROLES) @IsString({ each: true, ...ROLES }) roles!: string[];
}

class KeysFile {
  @IsArray({ message: 'must be an array' })
  @ValidateNested({ each: true })
  @Type(() => KeyEntry)
  keys!: KeyEntry[];
  @IsOptional()
  @IsObject({ message: 'must be an object of role name to permissions' })
  roles?: Record<string, unknown>;
}

/** One API key from SVC_KEYS_FILE, reduced to what the auth guard needs. */
export interface ConfiguredKey {
  id: string;
  /** SHA-256 digest of the key; the plain key is never kept. */
  sha256: Buffer;
  /** The only tenant this key may act for; undefined means every tenant. */
  tenantId?: string;
  roles: string[];
}

export interface KeysFileConfig {
  keys: ConfiguredKey[];
  /** Role name → permission strings; replaces a built-in role of the same name. */
  roles: Record<string, string[]>;
}

/** `keys[0].roles must be …` for the first failing field. */
function firstProblem(errors: ValidationError[], path = ''): string {
  const error = errors[0];
  const here = /^\d+$/.test(error.property)
    ? `${path}[${error.property}]`
    : `${path ? `${path}.` : ''}${error.property}`;
  if (error.constraints) return `${here} ${Object.values(error.constraints)[0]}`;
  return firstProblem(error.children ?? [], here);
}

/** Reads and validates the JSON keys file named by SVC_KEYS_FILE. Throws ConfigError. */
export function loadKeysFile(path: string): KeysFileConfig {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    const reason = error instanceof SyntaxError ? 'is not valid JSON' : 'cannot be read';
    throw new ConfigError(`SVC_KEYS_FILE ${path} ${reason}`);
  }
  const file = plainToInstance(KeysFile, raw);
  const errors = validateSync(file as object);
  if (errors.length > 0) throw new ConfigError(`SVC_KEYS_FILE ${path}: ${firstProblem(errors)}`);

  const roles: Record<string, string[]> = {};
  for (const [name, permissions] of Object.entries(file.roles ?? {})) {
    if (!Array.isArray(permissions) || !permissions.every((p) => typeof p === 'string')) {
      throw new ConfigError(`SVC_KEYS_FILE ${path}: roles.${name} must be an array of strings`);
    }
    roles[name] = permissions;
  }

  const seen = new Set<string>();
  const keys = file.keys.map((entry, index): ConfiguredKey => {
    if (seen.has(entry.id)) {
      throw new ConfigError(`SVC_KEYS_FILE ${path}: keys[${index}].id "${entry.id}" is used twice`);
    }
    seen.add(entry.id);
    if (!entry.key_sha256 === !entry.key) {
      throw new ConfigError(
        `SVC_KEYS_FILE ${path}: keys[${index}] needs exactly one of key_sha256 or key`,
      );
    }
    const sha256 = entry.key_sha256
      ? Buffer.from(entry.key_sha256, 'hex')
      : createHash('sha256')
          .update(entry.key ?? '')
          .digest();
    return { id: entry.id, sha256, tenantId: entry.tenant_id, roles: entry.roles };
  });
  return { keys, roles };
}
