import { type CanActivate, type ExecutionContext, ForbiddenException, Inject, Injectable, UnauthorizedException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { type GqlContextType, GqlExecutionContext } from '@nestjs/graphql';
import { APP_CONFIG, type AppConfig } from '@im/config';
import { ANONYMOUS, type Principal } from '@im/access';
import { ACCESS_KEY, type Access, INTEGRATION_KEY_ACCESS } from './access.decorators';
import { RequestAuthenticator } from './request-authenticator';

/** 401 for the anonymous caller of development mode, 403 for a valid token without `role`. */
export function demandRole(principal: Principal, role: string): void {
  if (!principal.authenticated) throw new UnauthorizedException(`A bearer token with the ${role} role is required (Authorization: Bearer <token>)`);
  if (!principal.roles.includes(role)) throw new ForbiddenException(`This needs the ${role} role`);
}

/** 403 for an integration key anywhere but the routes that accept one (and GraphQL, which accepts none). */
export function refuseIntegrationKey(principal: Principal): void {
  if (principal.integrationKey !== undefined) {
    throw new ForbiddenException('An integration key is accepted only by the timeline append and the integration endpoints; use a token here');
  }
}

/**
 * The one gate of every REST route and GraphQL operation: 401 when a needed
 * token is missing or does not verify, 403 when a valid token lacks the role.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly authenticator: RequestAuthenticator,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const access = this.reflector.getAllAndOverride<Access | undefined>(ACCESS_KEY, [context.getHandler(), context.getClass()]);
    if (context.getType<GqlContextType>() === 'graphql') {
      // Authenticated once, when the request's context was built (graphql/graphql-context.ts); roles per operation.
      if (access?.kind === 'role') demandRole(GqlExecutionContext.create(context).getContext<{ principal: Principal }>().principal, access.role);
      return true;
    }
    if (access?.kind === 'public') return true;
    const request = context.switchToHttp().getRequest<{ headers: Record<string, unknown>; user?: Principal }>();
    if (request.headers.authorization === undefined && !access && this.config.env === 'development') {
      request.user = ANONYMOUS;
      return true;
    }
    const principal = await this.authenticator.authenticate(request);
    request.user = principal;
    if (!this.reflector.getAllAndOverride<boolean | undefined>(INTEGRATION_KEY_ACCESS, [context.getHandler(), context.getClass()])) refuseIntegrationKey(principal);
    if (access?.kind === 'role') demandRole(principal, access.role);
    return true;
  }
}
