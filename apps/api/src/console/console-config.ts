import type { AppConfig } from '@im/config';

export interface ConsoleConfig {
  environment: AppConfig['env'];
  development_sign_in: boolean;
  oidc: { issuer: string; client_id: string; audience: string | null } | null;
}

/** How the console signs in: "sign in as" in development with a shared secret, OpenID Connect when a client id is configured. */
export function consoleConfig(config: AppConfig): ConsoleConfig {
  const { issuer, audience } = config.jwt;
  return {
    environment: config.env,
    development_sign_in: config.env === 'development' && config.jwt.kind === 'secret',
    oidc: config.consoleOidcClientId && issuer ? { issuer, client_id: config.consoleOidcClientId, audience: audience ?? null } : null,
  };
}
