import { createHmac, hkdfSync, randomBytes } from 'node:crypto';
import type { AppConfig } from '@im/config';
import { dataDirKey, open, seal } from '@im/secrets';

/** Nest injection token of the key that seals signing secrets at rest. */
export const WEBHOOK_SECRET_KEY = Symbol('WEBHOOK_SECRET_KEY');
export const WEBHOOK_SECRET_KEY_FILE = 'webhook-secret.key';

/** Standard Webhooks: `whsec_` + base64 of the key bytes (24 random bytes here). */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';
/** Standard Webhooks asks for 24 to 64 random bytes: its floor, a spec value. */
const SECRET_BYTES = 24;

export const newWebhookSecret = (): string => `${WEBHOOK_SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString('base64')}`;

/**
 * The AES-256-GCM key of signing secrets, derived (HKDF-SHA256) from
 * WEBHOOK_SECRET_KEY, else a random key generated into
 * DATA_DIR/webhook-secret.key. Unlike a cursor key, a key for this process
 * only would lose every secret at the next start, so a key file that cannot
 * be kept stops the start.
 */
export function webhookSecretKey(config: AppConfig): Buffer {
  const secret = config.webhooks.secretKey ?? dataDirKey(config.dataDir, WEBHOOK_SECRET_KEY_FILE);
  return Buffer.from(hkdfSync('sha256', secret, '', 'incident-service webhook secret v1', 32));
}

/** The registration's id is the associated data: a sealed secret copied onto another registration does not open. */
export const sealWebhookSecret = (key: Buffer, webhookId: string, secret: string): string => seal(key, secret, Buffer.from(webhookId));
export const openWebhookSecret = (key: Buffer, webhookId: string, sealed: string): string | undefined => open(key, sealed, Buffer.from(webhookId));

/** The signing key of a `whsec_` secret: its decoded bytes (decoded once per registration, not per delivery). */
export const webhookKey = (secret: string): Buffer => Buffer.from(secret.slice(WEBHOOK_SECRET_PREFIX.length), 'base64');

/**
 * `webhook-signature` of Standard Webhooks: `v1,` + base64 HMAC-SHA256 of
 * `id.timestamp.body`, keyed with the secret's decoded bytes.
 */
export function signWebhook(key: Buffer, messageId: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', key).update(`${messageId}.${timestamp}.${body}`).digest('base64')}`;
}
