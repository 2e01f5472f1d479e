import {
  type ExecutionContext,
  ForbiddenException,
  Inject,
  Injectable,
  UnauthorizedException,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard as PassportAuthGuard } from '@nestjs/passport';
import { APP_CONFIG, type AppConfig } from '@im/config';
import { ACCESS_KEY, type Access } from './access.decorators';
import { ANONYMOUS, type Principal } from './principal';

/**
 * The one gate of every route: 401 when a needed token is missing or does not
 * verify, 403 when a valid token lacks the route's role.
 */
@Injectable()
export class AuthGuard extends PassportAuthGuard('jwt') {
  constructor(
    private readonly reflector: Reflector,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super();
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const access = this.reflector.getAllAndOverride<Access | undefined>(ACCESS_KEY, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (access?.kind === 'public') return true;
    const request = context.switchToHttp().getRequest<{ headers: Record<string, unknown>; user?: Principal }>();
    if (request.headers.authorization === undefined && !access && this.config.env === 'development') {
      request.user = ANONYMOUS;
      return true;
    }
    await super.canActivate(context);
    const principal = request.user as Principal;
    if (access?.kind === 'role' && !principal.roles.includes(access.role)) {
      throw new ForbiddenException(`This needs the ${access.role} role`);
    }
    return true;
  }

  override handleRequest<T>(error: unknown, user: T, info: unknown): T {
    if (error instanceof UnauthorizedException) throw error;
    if (error || !user) {
      const reason = info instanceof Error ? info.message : 'no valid bearer token';
      throw new UnauthorizedException(
        reason === 'No auth token' ? 'A bearer token is required (Authorization: Bearer <token>)' : `The bearer token is not valid: ${reason}`,
      );
    }
    return user;
  }
}
