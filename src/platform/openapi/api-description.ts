import { Injectable } from '@nestjs/common';
import type { OpenApiDocument } from './openapi.types.js';

/**
 * The app's API description. The app that owns it hands in how to build it once every module
 * is mounted (createAppFromModule); it is built on first use and then served as it is, never
 * rebuilt or re-serialized per request. `svc serve` asks for it before it listens, so a route
 * the generator cannot describe stops the start; an app that is never asked (most test apps)
 * does not spend the ~100 ms the build takes.
 */
@Injectable()
export class ApiDescription {
  private builder?: () => OpenApiDocument;
  private built?: { document: OpenApiDocument; json: string };

  describeWith(builder: () => OpenApiDocument): void {
    this.builder = builder;
    this.built = undefined;
  }

  /** Builds the document now (it is built once in any case). */
  prepare(): void {
    this.build();
  }

  /** The document; undefined when no builder was handed in. */
  get document(): OpenApiDocument | undefined {
    return this.build()?.document;
  }

  /** The document as JSON text. */
  get json(): string | undefined {
    return this.build()?.json;
  }

  private build(): { document: OpenApiDocument; json: string } | undefined {
    if (!this.built && this.builder) {
      const document = this.builder();
      this.built = { document, json: JSON.stringify(document) };
    }
    return this.built;
  }
}
