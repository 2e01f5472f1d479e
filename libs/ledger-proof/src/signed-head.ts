import { createHash, createPublicKey, type KeyObject, sign, verify } from 'node:crypto';
import { decodeBase64url } from './committed-form';
import { jcs } from './jcs';
import type { Chain } from './view-chains';

/** A published Ed25519 public key (RFC 8037), with its RFC 7638 thumbprint as `kid`. */
export interface LedgerJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid: string;
  use: 'sig';
  status?: 'active' | 'retired';
}

/** The RFC 7638 thumbprint: base64url SHA-256 of the required members (crv, kty, x) in name order, no whitespace (their JCS). */
export function thumbprint({ crv, kty, x }: { crv: string; kty: string; x: string }): string {
  return createHash('sha256').update(jcs({ crv, kty, x })).digest('base64url');
}

/** The public JWK of an Ed25519 key (private or public). */
export function publicJwkOf(key: KeyObject): LedgerJwk {
  const { kty, crv, x } = createPublicKey(key).export({ format: 'jwk' }) as { kty: string; crv: string; x: string };
  if (kty !== 'OKP' || crv !== 'Ed25519') throw new Error('the ledger signs with Ed25519 keys only');
  return { kty, crv, x, kid: thumbprint({ crv, kty, x }), use: 'sig' };
}

export interface LedgerHead {
  incident_id: string;
  chain: Chain;
  /** Events in the chain; 0 with a null hash for a chain without events. */
  n: number;
  hash: string | null;
  signed_at: string;
  kid: string;
}

export interface SignedHead extends LedgerHead {
  /** base64url Ed25519 signature over UTF-8(JCS(the head without sig)). */
  sig: string;
}

export function signHead(head: LedgerHead, key: KeyObject): SignedHead {
  return { ...head, sig: sign(null, Buffer.from(jcs(head), 'utf8'), key).toString('base64url') };
}

/** Whether `key` signed the head; a key or signature that is not well-formed is a no. */
export function headSignedBy(head: SignedHead, key: Pick<LedgerJwk, 'kty' | 'crv' | 'x'>): boolean {
  const { sig, ...signed } = head;
  const signature = decodeBase64url(sig, 64);
  if (!signature) return false;
  try {
    const publicKey = createPublicKey({ key: { kty: key.kty, crv: key.crv, x: key.x }, format: 'jwk' });
    return verify(null, Buffer.from(jcs(signed), 'utf8'), publicKey, signature);
  } catch {
    return false;
  }
}
