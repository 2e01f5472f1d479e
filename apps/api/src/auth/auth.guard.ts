import { type CanActivate, type ExecutionContext, ForbiddenException, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { GqlContextType } from '@nestjs/graphql';
import { APP_CONFIG, type AppConfig } from '@im/config';
import { ACCESS_KEY, type Access } from './access.decorators';
import { ANONYMOUS, type Principal } from './principal';
import { RequestAuthenticator } from './request-authenticator';

/**
 * The one gate of every REST route: 401 when a needed token is missing or does
 * not verify, 403 when a valid token lacks the route's role.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly authenticator: RequestAuthenticator,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    // GraphQL requests are authenticated once, when their context is built (graphql/graphql-context.ts).
    if (context.getType<GqlContextType>() === 'graphql') return true;
    const access = this.reflector.getAllAndOverride<Access | undefined>(ACCESS_KEY, [context.getHandler(), context.getClass()]);
    if (access?.kind === 'public') return true;
    const request = context.switchToHttp().getRequest<{ headers: Record<string, unknown>; user?: Principal }>();
    if (request.headers.authorization === undefined && !access && this.config.env === 'development') {
      request.user = ANONYMOUS;
      return true;
    }
    const principal = await this.authenticator.authenticate(request);
    request.user = principal;
    if (access?.kind === 'role' && !principal.roles.includes(access.role)) {
      throw new ForbiddenException(`This needs the ${access.role} role`);
    }
    return true;
  }
}
