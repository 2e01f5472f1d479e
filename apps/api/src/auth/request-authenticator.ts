import { Inject, Injectable, UnauthorizedException } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { Passport } from 'passport';
import { APP_CONFIG, type AppConfig } from '@im/config';
import { looksLikeIntegrationKey } from '@im/incidents';
import type { Principal } from '@im/access';
import { IntegrationKeyAuthenticator } from './integration-key.authenticator';
import { JwtStrategy } from './jwt.strategy';

/** Why passport-jwt refused, in words a client can act on. */
export function unauthorized(info: unknown): UnauthorizedException {
  const reason = info instanceof Error ? info.message : 'no valid bearer token';
  return new UnauthorizedException(
    reason === 'No auth token' ? 'A bearer token is required (Authorization: Bearer <token>)' : `The bearer token is not valid: ${reason}`,
  );
}

/** The credential of `Bearer imk_…` (the scheme in any case, as passport-jwt reads it); undefined for any other header. */
const integrationKeyOf = (header: string): string | undefined => {
  const credential = /^bearer\s+(\S+)$/i.exec(header)?.[1];
  return credential !== undefined && looksLikeIntegrationKey(credential) ? credential : undefined;
};

interface HeaderCarrier {
  headers: Record<string, unknown>;
}

/** Distinct tokens remembered as verified: a bound on memory (each a Principal); more callers only verify more signatures. */
const VERIFIED_TOKENS_KEPT = 10_000;

/** The `exp` claim of a token that has just been verified, in ms. */
export function expiresAt(token: string): number | undefined {
  try {
    const { exp } = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as { exp?: unknown };
    return typeof exp === 'number' ? exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The one way a request is authenticated, for REST (the auth guard) and
 * GraphQL (the context). It owns a Passport instance bound to this app's
 * strategy, so two apps in one process never share verification settings.
 *
 * A phone or a monitoring system sends the same token with every request, and
 * checking its signature was the largest single cost of an append; tokens that
 * verified are remembered by their exact text (signature included) until they
 * expire, for at most half of JWT_KEY_REMOVAL_MS: the JWKS key cache has the
 * other half, so a key removed from the JWKS stops working within the whole
 * (a minute by default). Failures are never remembered.
 *
 * A bearer that starts with `imk_` is an integration key, never a JWT: it is
 * checked against the keys on every request and never remembered here, so a
 * revocation holds from the next request on.
 */
@Injectable()
export class RequestAuthenticator {
  private readonly passport = new Passport();
  private readonly verified = new LRUCache<string, Principal>({ max: VERIFIED_TOKENS_KEPT });
  /** How long a verified token is trusted without verifying its signature again (capped by its exp). */
  private readonly verifiedTtlMs: number;

  constructor(
    strategy: JwtStrategy,
    private readonly integrationKeys: IntegrationKeyAuthenticator,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.passport.use('jwt', strategy);
    this.verifiedTtlMs = config.jwt.keyRemovalMs / 2;
  }

  async authenticate(request: HeaderCarrier): Promise<Principal> {
    const header = request.headers.authorization;
    const key = typeof header === 'string' ? integrationKeyOf(header) : undefined;
    if (key !== undefined) return this.integrationKeys.authenticate(key);
    const token = typeof header === 'string' && header.startsWith('Bearer ') ? header.slice(7) : undefined;
    const known = token === undefined ? undefined : this.verified.get(token);
    if (known) return known;
    const principal = await this.verify(request);
    const ttl = Math.min(Date.now() + this.verifiedTtlMs, (token && expiresAt(token)) || Infinity) - Date.now();
    if (token && ttl > 0) this.verified.set(token, principal, { ttl });
    return principal;
  }

  private verify(request: HeaderCarrier): Promise<Principal> {
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
