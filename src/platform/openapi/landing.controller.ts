import { Controller, Get, Header } from '@nestjs/common';
import { Public } from '../auth/auth.decorators.js';
import { LANDING_CSP, LANDING_HTML } from './landing-page.js';

/** `GET /`: a small page pointing to the docs, the studio and the probes. Public; no data. */
@Public()
@Controller()
export class LandingController {
  @Get()
  @Header('Content-Type', 'text/html; charset=utf-8')
  @Header('Content-Security-Policy', LANDING_CSP)
  @Header('X-Content-Type-Options', 'nosniff')
  @Header('X-Frame-Options', 'DENY')
  @Header('Referrer-Policy', 'no-referrer')
  page(): string {
    return LANDING_HTML;
  }
}
