import type { ConsoleSettings } from './api/rest';
import { sessionFromToken, setSession } from './session';

/**
 * Production sign-in: OpenID Connect authorization code with PKCE at the
 * configured issuer (oidc-client-ts). Loaded only when used, so development
 * and an already signed-in console do not download it.
 */

type Oidc = NonNullable<ConsoleSettings['oidc']>;

export const CALLBACK_PATH = '/signin/callback';

async function userManager(oidc: Oidc) {
  const { UserManager, WebStorageStateStore } = await import('oidc-client-ts');
  return new UserManager({
    authority: oidc.issuer,
    client_id: oidc.client_id,
    redirect_uri: `${location.origin}${CALLBACK_PATH}`,
    response_type: 'code',
    scope: 'openid profile',
    // The api's audience (JWT_AUDIENCE): the provider then issues a JWT access token for it (RFC 8707).
    ...(oidc.audience ? { resource: oidc.audience } : {}),
    userStore: new WebStorageStateStore({ store: sessionStorage }),
    automaticSilentRenew: false,
  });
}

/** Signs in, then comes back to this page (a page's link to acknowledge survives the sign-in). */
export async function startOidcSignIn(oidc: Oidc): Promise<void> {
  await (await userManager(oidc)).signinRedirect({ state: location.pathname + location.search });
}

/**
 * Back from the provider: exchanges the code (with the PKCE verifier) for
 * tokens, signs in with the access token, and answers the console path sign-in
 * started from (this origin's only).
 */
export async function finishOidcSignIn(oidc: Oidc): Promise<string> {
  const user = await (await userManager(oidc)).signinRedirectCallback();
  setSession(sessionFromToken(user.access_token, 'oidc'));
  const back = user.state;
  return typeof back === 'string' && back.startsWith('/') && !back.startsWith('//') ? back : '/';
}
