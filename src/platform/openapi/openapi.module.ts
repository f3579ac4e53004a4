import { Module } from '@nestjs/common';
import { ApiDescription } from './api-description.js';
import { DocsPageController } from './docs-page.controller.js';
import { LandingController } from './landing.controller.js';
import { OpenApiController } from './openapi.controller.js';

/**
 * The API description (`/openapi.json`), its browsable page (`/docs`) and the landing page
 * (`/`). The document itself is built by createAppFromModule once every module is mounted
 * (buildApiDocument) and published into ApiDescription.
 */
@Module({
  controllers: [OpenApiController, DocsPageController, LandingController],
  providers: [ApiDescription],
  exports: [ApiDescription],
})
export class OpenApiModule {}
