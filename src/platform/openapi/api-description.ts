import { Injectable } from '@nestjs/common';
import type { OpenApiDocument } from './openapi.types.js';

interface Built {
  document: OpenApiDocument;
  json: string;
}

/**
 * The app's API description. The app that owns it hands in how to build it once every module
 * is mounted (createAppFromModule); it is built on first use (the first `GET /openapi.json`)
 * and then served as it is, never rebuilt or re-serialized per request. Nothing builds it at
 * start: the build loads @nestjs/swagger and its dependencies and walks every route, which a
 * gateway that is never asked for its description should not pay for in start time or memory.
 * The OpenAPI e2e test builds it for the composed app, so a route the generator cannot
 * describe fails the suite. A build that fails is tried again on the next request.
 */
@Injectable()
export class ApiDescription {
  private builder?: () => Promise<OpenApiDocument>;
  private built?: Promise<Built>;

  describeWith(builder: () => Promise<OpenApiDocument>): void {
    this.builder = builder;
    this.built = undefined;
  }

  /** The document; undefined when no builder was handed in. */
  async document(): Promise<OpenApiDocument | undefined> {
    return (await this.build())?.document;
  }

  /** The document as JSON text. */
  async json(): Promise<string | undefined> {
    return (await this.build())?.json;
  }

  private build(): Promise<Built> | undefined {
    if (!this.built && this.builder) {
      const builder = this.builder;
      const built = builder().then((document) => ({ document, json: JSON.stringify(document) }));
      this.built = built;
      built.catch(() => {
        if (this.built === built) this.built = undefined;
      });
    }
    return this.built;
  }
}
