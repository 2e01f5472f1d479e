import { Injectable, UnauthorizedException } from '@nestjs/common';
import { Passport } from 'passport';
import type { Principal } from './principal';
import { JwtStrategy } from './jwt.strategy';

/** Why passport-jwt refused, in words a client can act on. */
export function unauthorized(info: unknown): UnauthorizedException {
  const reason = info instanceof Error ? info.message : 'no valid bearer token';
  return new UnauthorizedException(
    reason === 'No auth token' ? 'A bearer token is required (Authorization: Bearer <token>)' : `The bearer token is not valid: ${reason}`,
  );
}

/**
 * The one way a request is authenticated, for REST (the auth guard) and
 * GraphQL (the context). It owns a Passport instance bound to this app's
 * strategy, so two apps in one process never share verification settings.
 */
@Injectable()
export class RequestAuthenticator {
  private readonly passport = new Passport();

  constructor(strategy: JwtStrategy) {
    this.passport.use('jwt', strategy);
  }

  authenticate(request: unknown): Promise<Principal> {
    return new Promise((resolve, reject) => {
      const run = this.passport.authenticate('jwt', { session: false }, (error: unknown, user: Principal | false, info: unknown) => {
        if (error) return reject(error instanceof UnauthorizedException ? error : unauthorized(error));
        if (!user) return reject(unauthorized(info));
        resolve(user);
      });
      run(request, {}, (error: unknown) => reject(unauthorized(error)));
    });
  }
}
