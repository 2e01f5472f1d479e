import { createParamDecorator, type ExecutionContext, SetMetadata } from '@nestjs/common';
import { ANONYMOUS, type Principal } from '@im/access';

export const ACCESS_KEY = 'im:access';

/**
 * Who may call a route. Without a decorator: anyone in development mode, a
 * valid token (any role) in production.
 */
export type Access = { kind: 'public' } | { kind: 'authenticated' } | { kind: 'role'; role: string };

/** No token needed in any mode (health). */
export const Public = () => SetMetadata(ACCESS_KEY, { kind: 'public' } satisfies Access);

/** A valid token (any role), in every mode: routes that name the service's processes (leases). */
export const Authenticated = () => SetMetadata(ACCESS_KEY, { kind: 'authenticated' } satisfies Access);

/** A valid token carrying `role`, in every mode. */
export const RequireRole = (role: string) => SetMetadata(ACCESS_KEY, { kind: 'role', role } satisfies Access);

export const INTEGRATION_KEY_ACCESS = 'im:accepts-integration-key';

/**
 * The route also accepts an integration key (the timeline append and the
 * integration endpoints); everywhere else a key is refused with 403. Goes
 * beside `@RequireRole`, which still names the role the key must carry.
 */
export const AcceptsIntegrationKey = () => SetMetadata(INTEGRATION_KEY_ACCESS, true);

/** The caller, as the auth guard established it. */
export const CurrentPrincipal = createParamDecorator(
  (_: unknown, context: ExecutionContext): Principal =>
    context.switchToHttp().getRequest<{ user?: Principal }>().user ?? ANONYMOUS,
);
