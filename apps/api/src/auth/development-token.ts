import { sign } from 'jsonwebtoken';
import type { AppConfig } from '@im/config';
import { principalFromClaims } from '@im/access';

/** What a development token says about its holder (the claims principalFromClaims reads). */
export interface DevelopmentClaims {
  sub: string;
  roles: string[];
  clearance: string;
  data_access: string[];
}

export class DevelopmentTokenRefusedError extends Error {}

/**
 * A token signed with JWT_SECRET (or the development secret), as `npm run token`
 * and the console's "sign in as" make it. Claims a token could not authenticate
 * with are refused (InvalidClaimsError), and so is a configuration that
 * verifies published keys: this process holds no private key then.
 */
export function mintDevelopmentToken(config: AppConfig, claims: DevelopmentClaims, expiresIn: `${number}h` = '12h'): string {
  if (config.jwt.kind !== 'secret') throw new DevelopmentTokenRefusedError('tokens are signed here only with JWT_SECRET; JWT_JWKS_URL is set');
  principalFromClaims({ ...claims });
  return sign(claims, config.jwt.secret, {
    algorithm: 'HS256',
    expiresIn,
    ...(config.jwt.issuer ? { issuer: config.jwt.issuer } : {}),
    ...(config.jwt.audience ? { audience: config.jwt.audience } : {}),
  });
}
