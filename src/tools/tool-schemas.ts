import { Injectable, Optional } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { GatewayConfig } from '../platform/config/gateway-config.js';
import { LazyModule } from '../platform/lazy/lazy-module.js';
import type { ArgumentsValidator, SchemaValidator } from './schema-validator.js';

/** SchemaValidator and everything under it: ajv (three dialects), ajv-formats, RE2. */
const engine = new LazyModule('the JSON Schema validator', () => import('./schema-validator.js'));

/**
 * The JSON Schema checks of tool contracts (SchemaValidator), made on first use: the validator
 * loads ajv, its formats and the RE2 engine, which a replica needs only once a tool is called or
 * registered, so they are imported then rather than at start. `load()` where it is asynchronous
 * (the tool path, registration), then `loaded()` below it.
 */
@Injectable()
export class ToolSchemas {
  private validator?: SchemaValidator;

  constructor(@Optional() private readonly config?: ConfigService<GatewayConfig, true>) {}

  async load(): Promise<SchemaValidator> {
    if (!this.validator) {
      const { SchemaValidator } = await engine.load();
      this.validator ??= new SchemaValidator(this.config);
    }
    return this.validator;
  }

  /** The validator, for code that runs after a `load()` (throws if none has finished). */
  loaded(): SchemaValidator {
    if (!this.validator) throw new Error('the tool schema validator is used before it was loaded');
    return this.validator;
  }

  /**
   * The validator of a schema of the gateway's own (a built-in tool's), compiled on its first
   * call, which comes after a `load()`: a start does not pay for the built-ins' compilations.
   */
  onFirstUse(schema: Parameters<SchemaValidator['compile']>[0]): ArgumentsValidator {
    let compiled: ArgumentsValidator | undefined;
    return (value) => {
      compiled ??= this.loaded().compile(schema);
      return compiled(value);
    };
  }
}
