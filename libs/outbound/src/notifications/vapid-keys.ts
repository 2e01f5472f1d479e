import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import webPush from 'web-push';
import type { AppConfig } from '@im/config';

export const VAPID_KEYS = Symbol('VAPID_KEYS');

export interface VapidKeys {
  publicKey: string;
  privateKey: string;
  subject: string;
}

const FILE = 'vapid-keys.json';

/**
 * The VAPID key pair (RFC 8292): VAPID_PUBLIC_KEY/VAPID_PRIVATE_KEY, else a
 * pair generated once into DATA_DIR/vapid-keys.json (mode 0600), so browsers'
 * subscriptions, which are bound to the public key, outlive a restart.
 */
export function vapidKeys(config: AppConfig): VapidKeys {
  const { vapidKeys: configured, vapidSubject: subject } = config.notifications;
  if (configured) return { ...configured, subject };
  const file = join(config.dataDir, FILE);
  try {
    mkdirSync(config.dataDir, { recursive: true });
    // `wx`: of two processes starting at once, one writes and the other reads what it wrote.
    writeFileSync(file, `${JSON.stringify(webPush.generateVAPIDKeys())}\n`, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw new Error(`cannot create ${file} (${(error as NodeJS.ErrnoException).code})`);
  }
  const stored = JSON.parse(readFileSync(file, 'utf8')) as { publicKey?: unknown; privateKey?: unknown };
  if (typeof stored.publicKey !== 'string' || typeof stored.privateKey !== 'string') throw new Error(`${file} holds no key pair; delete it to have a new one made (registered browsers must then subscribe again)`);
  return { publicKey: stored.publicKey, privateKey: stored.privateKey, subject };
}
