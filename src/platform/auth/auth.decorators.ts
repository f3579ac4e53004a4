import {
  SetMetadata,
  createParamDecorator,
  type CustomDecorator,
  type ExecutionContext,
} from '@nestjs/common';
import { ANONYMOUS_ADMIN, type AuthenticatedRequest, type Principal } from './principal.js';

export const IS_PUBLIC = 'svc:public';
export const REQUIRED_PERMISSIONS = 'svc:permissions';

/** The route answers without a credential (probes). */
export const Public = (): CustomDecorator => SetMetadata(IS_PUBLIC, true);

/** The caller's key must grant every listed permission (403 otherwise). */
export const RequirePermissions = (...permissions: string[]): CustomDecorator =>
  SetMetadata(REQUIRED_PERMISSIONS, permissions);

/** The principal the AuthGuard resolved for this request. */
export const CurrentPrincipal = createParamDecorator(
  (_: unknown, context: ExecutionContext): Principal =>
    context.switchToHttp().getRequest<AuthenticatedRequest>().principal ?? ANONYMOUS_ADMIN,
);
