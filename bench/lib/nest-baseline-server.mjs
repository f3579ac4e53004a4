/**
 * The bare Nest baseline: what Nest + Express cost with nothing of the gateway but its validation
 * pipe, placed as the gateway places it: on the DTO param of a route, not as a global pipe (the
 * gateway has none; a global pipe would also run on the header params and cost this baseline
 * work the gateway does not do). One controller: GET /info compares the Authorization header
 * and answers the same JSON object as the gateway's /info; POST /v1/tools/:toolset/:name and
 * POST /v1/agent/run read the body through the pipe (a small DTO of the fields the bench sends)
 * and answer like lib/baseline-server.mjs. Run as a child process (after `npm run build`):
 *   BASELINE_API_KEY=... node bench/lib/nest-baseline-server.mjs <port>
 * /readyz answers without a key. Exits when its parent closes stdin (the runner died).
 * Plain JS: decorators, key check and serving from lib/nest-bench-app.mjs.
 */
import { Body, Get, Headers, HttpCode, Post, Req } from '@nestjs/common';
import { IsObject, IsOptional, IsString } from 'class-validator';
import { SURFACES } from '../../dist/src/app/surfaces.js';
import { PACKAGE } from '../../dist/src/platform/config/package-info.js';
import { createValidationPipe } from '../../dist/src/platform/http/validation.pipe.js';
import { authorize, decorateMethod, decorateParams, serveController } from './nest-bench-app.mjs';

/** Every field a bench POST sends (tool call and agent run), so whitelisting keeps them. */
class BaselineBody {}
for (const field of ['tenant_id', 'prompt', 'run_id']) {
  IsOptional()(BaselineBody.prototype, field);
  IsString()(BaselineBody.prototype, field);
}
IsOptional()(BaselineBody.prototype, 'arguments');
IsObject()(BaselineBody.prototype, 'arguments');

class BaselineController {
  readyz() {
    return { status: 'ready' };
  }

  /** The gateway's /info answer for an sqlite gateway on the echo provider. */
  info(authorization) {
    authorize(authorization);
    return {
      name: PACKAGE.name,
      version: PACKAGE.version,
      backend: 'sqlite',
      provider: 'echo',
      model: null,
      default_tenant: null,
      surfaces: SURFACES,
    };
  }

  post(authorization, body, req) {
    authorize(authorization);
    return {
      name: 'nest-baseline',
      method: req.method,
      path: req.url,
      result: body.arguments?.text ?? null,
      ok: true,
    };
  }
}
decorateMethod(BaselineController, 'readyz', [Get('readyz')]);
decorateMethod(BaselineController, 'info', [Get('info')]);
decorateParams(BaselineController, 'info', [[Headers('authorization'), String]]);
// Two routes, one handler: the tool call and the agent run paths the bench POSTs to.
decorateMethod(BaselineController, 'post', [
  Post(['v1/tools/:toolset/:name', 'v1/agent/run']),
  HttpCode(200),
]);
decorateParams(BaselineController, 'post', [
  [Headers('authorization'), String],
  [Body(createValidationPipe()), BaselineBody],
  [Req(), Object],
]);
await serveController(BaselineController, Number(process.argv[2]));
