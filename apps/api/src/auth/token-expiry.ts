import { expiresAt } from './request-authenticator';

/** Why a connection opened with a token ends when the token expires. */
export const TOKEN_EXPIRED = 'The bearer token has expired';

/** The longest delay setTimeout takes; a token valid for longer is checked again then. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Calls `expired` once the bearer token of an `Authorization` header that has
 * just been verified expires, for a connection that outlives its request (a
 * live stream, a socket): from then on a request with it would be refused.
 * Nothing for a token without `exp` or an integration key. Returns the cancel.
 */
export function whenTokenExpires(authorization: string | undefined, expired: () => void): () => void {
  const expiry = typeof authorization === 'string' ? expiresAt(authorization.replace(/^bearer\s+/i, '')) : undefined;
  let timer: NodeJS.Timeout | undefined;
  const check = () => {
    if (expiry === undefined) return;
    const left = expiry - Date.now();
    if (left <= 0) return expired();
    timer = setTimeout(check, Math.min(left, MAX_TIMER_MS));
  };
  check();
  return () => clearTimeout(timer);
}
