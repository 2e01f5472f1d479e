import { createParamDecorator, type ExecutionContext, SetMetadata } from '@nestjs/common';
import { ANONYMOUS, type Principal } from './principal';

export const ACCESS_KEY = 'im:access';

/**
 * Who may call a route. Without a decorator: anyone in development mode, a
 * valid token (any role) in production.
 */
export type Access = { kind: 'public' } | { kind: 'role'; role: string };

/** No token needed in any mode (health). */
export const Public = () => SetMetadata(ACCESS_KEY, { kind: 'public' } satisfies Access);

/** A valid token carrying `role`, in every mode. */
export const RequireRole = (role: string) => SetMetadata(ACCESS_KEY, { kind: 'role', role } satisfies Access);

/** The caller, as the auth guard established it. */
export const CurrentPrincipal = createParamDecorator(
  (_: unknown, context: ExecutionContext): Principal =>
    context.switchToHttp().getRequest<{ user?: Principal }>().user ?? ANONYMOUS,
);
