import { Inject, Injectable, UnauthorizedException } from '@nestjs/common';
import { createSecretKey } from 'node:crypto';
import { PassportStrategy } from '@nestjs/passport';
import { passportJwtSecret } from 'jwks-rsa';
import { ExtractJwt, Strategy, type StrategyOptionsWithoutRequest } from 'passport-jwt';
import { APP_CONFIG, type AppConfig, type JwtConfig } from '@im/config';
import { InvalidClaimsError, type Principal, principalFromClaims } from '@im/access';

/** JWKS fetches a minute at most, however many tokens name unknown keys: jwks-rsa's own default, a bound on what callers can make the service fetch, not a knob. */
const JWKS_REQUESTS_PER_MINUTE = 10;

/** Pinned algorithms: a shared secret only ever verifies HS256, published keys only RS256/ES256; `none` never. */
function verification(jwt: JwtConfig): Partial<StrategyOptionsWithoutRequest> {
  if (jwt.kind === 'secret') {
    // A KeyObject, not the string: given a string, jsonwebtoken tries (and fails) to parse a public key on every verify.
    return { secretOrKey: createSecretKey(Buffer.from(jwt.secret)) as unknown as string, algorithms: ['HS256'] };
  }
  return {
    // Half of the removal window; the verified-token memo (request-authenticator.ts) has the other half.
    secretOrKeyProvider: passportJwtSecret({ jwksUri: jwt.jwksUrl, cache: true, cacheMaxAge: jwt.keyRemovalMs / 2, rateLimit: true, jwksRequestsPerMinute: JWKS_REQUESTS_PER_MINUTE }),
    algorithms: ['RS256', 'ES256'],
  };
}

@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, 'jwt') {
  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    super({
      jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
      ignoreExpiration: false,
      issuer: config.jwt.issuer,
      audience: config.jwt.audience,
      ...verification(config.jwt),
    } as StrategyOptionsWithoutRequest);
  }

  validate(claims: Record<string, unknown>): Principal {
    try {
      // A token that never expires cannot be taken back.
      if (typeof claims.exp !== 'number') throw new InvalidClaimsError('exp must be set');
      return principalFromClaims(claims);
    } catch (error) {
      if (error instanceof InvalidClaimsError) throw new UnauthorizedException(`The bearer token's claims are invalid: ${error.message}`);
      throw error;
    }
  }
}
