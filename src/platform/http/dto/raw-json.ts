import { Transform } from 'class-transformer';
import { declareFieldShape } from './field-shapes.js';

/**
 * A free-form JSON field (tool arguments and schemas, run metadata), kept exactly as parsed.
 * The validation pipe hands it past class-transformer untouched: copying it would cost time in
 * proportion to its size and drop keys named like Object.prototype's methods (`toString`,
 * `valueOf`, …). The Transform does the same for a plain `plainToInstance` (the CLI).
 */
export const RawJson = (): PropertyDecorator => (target, key) => {
  declareFieldShape(target, key, { raw: true });
  Transform(({ obj, key: name }) => (obj as Record<string, unknown>)[name])(target, key);
};
