import { type Algorithm, sign, type SignOptions } from 'jsonwebtoken';
import { DEVELOPMENT_JWT_SECRET } from '@im/config';

/** Every timeline role, the relay's too: test events name actors freely (docs/security.md, "Who wrote an event"). */
export const ALL_TIMELINE_ROLES = ['timeline.writer', 'timeline.reader', 'timeline.exporter', 'timeline.relay'];

/** A development token as `npm run token` makes it, with any claims a test needs. */
export function token(claims: Record<string, unknown> = {}, options: SignOptions = {}, secret = DEVELOPMENT_JWT_SECRET): string {
  return sign(
    { sub: 'alice', roles: ALL_TIMELINE_ROLES, clearance: 'confidential', data_access: ['pii', 'phi', 'legal_hold'], ...claims },
    secret,
    { algorithm: 'HS256' as Algorithm, expiresIn: '1h', ...options },
  );
}

export const bearer = (jwt: string) => ({ authorization: `Bearer ${jwt}` });
