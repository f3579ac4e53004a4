import { Controller, Get, Res } from '@nestjs/common';
import type { Response } from 'express';
import { Public } from '../auth/auth.decorators.js';
import { ProblemException } from '../http/problem.js';
import { ApiDescription } from './api-description.js';
import { ResponseSchema } from './response-schema.js';

const OPENAPI_DOCUMENT = {
  name: 'OpenApiDocument',
  schema: { type: 'object', description: 'This document (OpenAPI 3.1).', required: ['openapi'] },
};

/**
 * `GET /openapi.json`: the OpenAPI 3.1 description of every route, public like the probes. It
 * holds what the routes are and what they take, which the code of the gateway also says; no
 * tenant's data, key or configuration value.
 */
@Public()
@Controller()
export class OpenApiController {
  constructor(private readonly description: ApiDescription) {}

  @Get('openapi.json')
  @ResponseSchema(OPENAPI_DOCUMENT)
  async document(@Res() res: Response): Promise<void> {
    const json = await this.description.json();
    if (json === undefined) throw new ProblemException(503, 'the API description was not built');
    // Express adds an ETag and answers a matching If-None-Match with 304.
    res.status(200).type('application/json').set('Cache-Control', 'no-cache').send(json);
  }
}
