import { Transform } from 'class-transformer';

/**
 * Keeps a free-form JSON field exactly as parsed. class-transformer copies a plain object key by
 * key and skips keys named like Object.prototype's methods (`toString`, `valueOf`,
 * `hasOwnProperty`, …), so a tool's schema or arguments would silently lose such properties.
 */
export const RawJson = (): PropertyDecorator =>
  Transform(({ obj, key }) => (obj as Record<string, unknown>)[key]);
