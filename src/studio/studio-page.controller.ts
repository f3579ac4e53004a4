import {
  Controller,
  Get,
  Logger,
  NotFoundException,
  type OnModuleInit,
  Req,
  Res,
} from '@nestjs/common';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Request, Response } from 'express';
import { Public } from '../platform/auth/auth.decorators.js';
import {
  STUDIO_CSP,
  STUDIO_FILE_ROUTES,
  STUDIO_UI_DIR,
  type StudioAsset,
  loadStudioAssets,
} from './studio-page.assets.js';

/**
 * The studio web page (`/studio`): static files from `studio-ui/`, public because they hold no
 * data. The page asks for an API key and reads everything it shows from /v1/* with it
 * (/v1/whoami first), so the key's permissions and tenant decide what it sees and may do.
 */
@Public()
@Controller('studio')
export class StudioPageController implements OnModuleInit {
  private readonly logger = new Logger(StudioPageController.name);
  /** Read on the first request of the page, then kept. */
  private assets?: Map<string, StudioAsset>;

  onModuleInit(): void {
    if (!existsSync(join(STUDIO_UI_DIR, 'index.html'))) {
      this.logger.warn(`studio page files not found in ${STUDIO_UI_DIR}: /studio answers 404`);
    }
  }

  @Get()
  page(@Res() res: Response): void {
    this.send('/studio', res);
  }

  /** One route per file (listed, so the API description and the auth tests see each). */
  @Get([...STUDIO_FILE_ROUTES])
  file(@Req() req: Request, @Res() res: Response): void {
    // The matched path, without the trailing slash Express's loose routing lets through.
    this.send(req.path.replace(/\/+$/, ''), res);
  }

  private send(path: string, res: Response): void {
    this.assets ??= loadStudioAssets();
    const asset = this.assets.get(path);
    if (!asset) throw new NotFoundException(`the studio page is not installed (${path})`);
    res.set({
      'Content-Type': asset.type,
      'Content-Security-Policy': STUDIO_CSP,
      'X-Content-Type-Options': 'nosniff',
      'X-Frame-Options': 'DENY',
      'Referrer-Policy': 'no-referrer',
      'Cache-Control': 'no-cache',
    });
    // Express adds an ETag, answers 304 to a matching If-None-Match and leaves out HEAD bodies.
    res.status(200).send(asset.body);
  }
}
