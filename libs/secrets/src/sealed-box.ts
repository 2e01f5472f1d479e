import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** AES-GCM's 96-bit nonce and 128-bit tag (NIST SP 800-38D): spec values. */
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * AES-256-GCM with a fresh IV, as base64url `iv | ciphertext | tag`: what is
 * sealed cannot be read, and a sealed text changed by one bit, or opened with
 * other associated data, does not open.
 */
export function seal(key: Buffer, plaintext: string, associated: Buffer): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES }).setAAD(associated);
  const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, sealed, cipher.getAuthTag()]).toString('base64url');
}

/** The plaintext of a sealed text; undefined when it is malformed, altered, or sealed under another key or associated data. */
export function open(key: Buffer, sealedText: string, associated: Buffer): string | undefined {
  const bytes = Buffer.from(sealedText, 'base64url');
  if (bytes.length <= IV_BYTES + TAG_BYTES) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES })
      .setAAD(associated)
      .setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}
