import { Inject, Injectable, Logger } from '@nestjs/common';
import { createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { APP_CONFIG, type AppConfig, ConfigError } from '@im/config';
import { type LedgerJwk, publicJwkOf } from '@im/ledger-proof';

/** Where the development signing key is generated when LEDGER_SIGNING_KEY is unset. */
export const DEVELOPMENT_KEY_FILE = 'ledger-signing-key.pem';
/** Every public key the service has signed heads with, so that retired keys stay published. */
export const KNOWN_KEYS_FILE = 'ledger-keys.json';

function readSigningKey(config: AppConfig): KeyObject {
  const given = config.ledgerSigningKey;
  let pem: string;
  if (given === null) pem = developmentKey(config.dataDir);
  else if (given.trimStart().startsWith('-----BEGIN')) pem = given;
  else {
    try {
      pem = readFileSync(given, 'utf8');
    } catch (error) {
      throw new ConfigError(`LEDGER_SIGNING_KEY names no readable file (${(error as Error).message})`);
    }
  }
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    throw new ConfigError('LEDGER_SIGNING_KEY is not a PKCS#8 PEM private key');
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new ConfigError(`LEDGER_SIGNING_KEY must be an Ed25519 key (got ${String(key.asymmetricKeyType)})`);
  return key;
}

/** Generated once (mode 0600), then reused: heads signed before a restart verify after it. */
function developmentKey(dataDir: string): string {
  const file = join(dataDir, DEVELOPMENT_KEY_FILE);
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true });
    const { privateKey } = generateKeyPairSync('ed25519');
    writeFileSync(file, privateKey.export({ format: 'pem', type: 'pkcs8' }), { flag: 'wx', mode: 0o600 });
    new Logger('LedgerKeys').warn(`LEDGER_SIGNING_KEY is unset: ledger heads are signed with a development key generated into ${file}`);
  }
  return readFileSync(file, 'utf8');
}

/**
 * The key that signs ledger heads, and every key that signed before: a restart with a new
 * LEDGER_SIGNING_KEY retires the old one, which stays published (DATA_DIR/ledger-keys.json).
 */
@Injectable()
export class LedgerKeys {
  readonly signingKey: KeyObject;
  readonly active: LedgerJwk;
  private readonly known: LedgerJwk[];

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.signingKey = readSigningKey(config);
    this.active = publicJwkOf(this.signingKey);
    const file = join(config.dataDir, KNOWN_KEYS_FILE);
    const stored = existsSync(file) ? ((JSON.parse(readFileSync(file, 'utf8')) as { keys: LedgerJwk[] }).keys ?? []) : [];
    this.known = stored.map(({ kty, crv, x, kid, use }) => ({ kty, crv, x, kid, use }));
    if (!this.known.some((key) => key.kid === this.active.kid)) {
      this.known.push(this.active);
      mkdirSync(config.dataDir, { recursive: true });
      writeFileSync(`${file}.tmp`, `${JSON.stringify({ keys: this.known }, null, 2)}\n`);
      renameSync(`${file}.tmp`, file);
    }
  }

  /** The JWK set of GET /api/v1/ledger/keys: the active key first, then the retired ones. */
  published(): LedgerJwk[] {
    const retired = this.known.filter((key) => key.kid !== this.active.kid).map((key) => ({ ...key, status: 'retired' as const }));
    return [{ ...this.active, status: 'active' }, ...retired];
  }
}
