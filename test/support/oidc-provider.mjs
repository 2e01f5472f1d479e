/**
 * A real OpenID provider (oidc-provider) for the console's production sign-in
 * test, run as its own process (the package is ESM-only). Any login and
 * password sign in; the account's roles, clearance and data access go into a
 * JWT access token for the api's audience (RFC 8707 resource indicator).
 * Prints {"issuer": …} once listening. Env: REDIRECT_URI, AUDIENCE, CLIENT_ID.
 */
import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import Provider from 'oidc-provider';

const { REDIRECT_URI, AUDIENCE, CLIENT_ID } = process.env;
const key = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });

const server = createServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;

const provider = new Provider(issuer, {
  jwks: { keys: [{ ...key, kid: 'console-test', use: 'sig', alg: 'RS256' }] },
  clients: [
    { client_id: CLIENT_ID, redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none', grant_types: ['authorization_code'], response_types: ['code'] },
  ],
  pkce: { required: () => true },
  clientBasedCORS: () => true,
  findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
  features: {
    devInteractions: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => AUDIENCE,
      // The code's resource is used at the token endpoint too (oidc-client-ts sends it only with the authorization request).
      useGrantedResource: () => true,
      getResourceServerInfo: () => ({ scope: 'incidents', audience: AUDIENCE, accessTokenFormat: 'jwt', accessTokenTTL: 600, jwt: { sign: { alg: 'RS256' } } }),
    },
  },
  extraTokenClaims: (_ctx, token) => ({ roles: ['timeline.writer', 'timeline.reader', 'timeline.exporter'], clearance: 'internal', data_access: [], sub: token.accountId }),
});
server.on('request', provider.callback());
process.stdout.write(`${JSON.stringify({ issuer })}\n`);
