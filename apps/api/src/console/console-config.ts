import { type AppConfig, DEVELOPMENT_JWT_SECRET } from '@im/config';
import { consoleCsp } from './console-files';

export interface ConsoleConfig {
  environment: AppConfig['env'];
  development_sign_in: boolean;
  oidc: { issuer: string; client_id: string; audience: string | null } | null;
}

/**
 * How the console signs in: "sign in as" only where tokens are verified with
 * the built-in development secret (development, neither JWT_SECRET nor
 * JWT_JWKS_URL set), which anyone can sign with anyway; a configured secret
 * is never used to mint tokens for whoever asks (a deployment that set
 * JWT_SECRET but forgot APP_ENV=production). OpenID Connect when a client id is configured.
 */
export function consoleConfig(config: AppConfig): ConsoleConfig {
  const { issuer, audience } = config.jwt;
  return {
    environment: config.env,
    development_sign_in: config.env === 'development' && config.jwt.kind === 'secret' && config.jwt.secret === DEVELOPMENT_JWT_SECRET,
    oidc: config.consoleOidcClientId && issuer ? { issuer, client_id: config.consoleOidcClientId, audience: audience ?? null } : null,
  };
}

/** The CSP of every page the console's files make (the console, the GraphQL playground). */
export const consolePageCsp = (config: AppConfig): string => consoleCsp(consoleConfig(config).oidc?.issuer ?? null);
