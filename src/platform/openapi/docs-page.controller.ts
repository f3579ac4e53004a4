import { Controller, Get, Res } from '@nestjs/common';
import type { Response } from 'express';
import { Public } from '../auth/auth.decorators.js';
import { DOCS_CSP, docsAssets } from './docs-page.js';

/**
 * `GET /docs`: Swagger UI over `/openapi.json`, served from the gateway's own files (no CDN:
 * the page works offline and tells no third party who reads it). Public: it holds no data, and
 * "Try it out" sends the key the reader types, which decides what the calls may do.
 */
@Public()
@Controller('docs')
export class DocsPageController {
  @Get()
  page(@Res() res: Response): void {
    this.send('/docs', res);
  }

  @Get('docs.js')
  start(@Res() res: Response): void {
    this.send('/docs/docs.js', res);
  }

  @Get('swagger-ui.css')
  style(@Res() res: Response): void {
    this.send('/docs/swagger-ui.css', res);
  }

  @Get('swagger-ui-bundle.js')
  bundle(@Res() res: Response): void {
    this.send('/docs/swagger-ui-bundle.js', res);
  }

  @Get('favicon-32x32.png')
  icon(@Res() res: Response): void {
    this.send('/docs/favicon-32x32.png', res);
  }

  private send(path: string, res: Response): void {
    const asset = docsAssets().get(path);
    if (!asset) throw new Error(`docs asset ${path} is not listed`);
    res.set({
      'Content-Type': asset.type,
      'Content-Security-Policy': DOCS_CSP,
      'X-Content-Type-Options': 'nosniff',
      'X-Frame-Options': 'DENY',
      'Referrer-Policy': 'no-referrer',
      'Cache-Control': 'no-cache',
    });
    res.status(200).send(asset.body);
  }
}
