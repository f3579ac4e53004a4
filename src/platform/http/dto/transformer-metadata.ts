// @ts-expect-error: class-transformer keeps its decorators' metadata here but types it elsewhere.
import { defaultMetadataStorage } from 'class-transformer/cjs/storage.js';
import type { MetadataStorage } from 'class-transformer/types/MetadataStorage.js';

/**
 * class-transformer's record of its decorators (`@Type`, `@Transform`, `@Expose`, `@Exclude`):
 * read by the API description (which class a nested field holds) and by the validation pipe
 * (which fields it would only copy).
 */
export const transformerMetadata = defaultMetadataStorage as MetadataStorage;
