import { isAbsolute, resolve } from 'node:path';

export const APP_CONFIG = Symbol('APP_CONFIG');

export interface AppConfig {
  env: 'development' | 'production';
  host: string;
  port: number;
  dataDir: string;
  eventStore: { kind: 'sqlite' } | { kind: 'kurrentdb' | 'postgres'; url: string };
  readStore: { kind: 'sqlite' } | { kind: 'mongodb' | 'postgres'; url: string };
  /** embedded: the api runs the projection workers; external: apps/projector does, and the api waits on its checkpoints. */
  projector: 'embedded' | 'external';
  /** How long a command waits for the read models to show its events. */
  projectionWaitMs: number;
  jwt: JwtConfig;
  /** Seals timeline cursors; unset: derived from JWT_SECRET, else a key kept in DATA_DIR. Instances behind one balancer need the same. */
  cursorSecret: string | null;
  policy: PolicyConfig;
  /** e.g. https://meet.example.com/incident-{id}; mobile views link to it when set. */
  warRoomUrlTemplate: string | null;
  /** The web console's OpenID Connect client id at JWT_ISSUER (production sign-in); null: the console offers none. */
  consoleOidcClientId: string | null;
  /** Signs ledger heads: an Ed25519 PKCS#8 PEM key or a path to one; unset, a development key generated into DATA_DIR. */
  ledgerSigningKey: string | null;
  /** How often the heads of the chains that changed are signed into DATA_DIR/ledger-heads.jsonl. */
  ledgerHeadIntervalMs: number;
  http: HttpConfig;
  webhooks: WebhooksConfig;
  live: LiveConfig;
  notifications: NotificationsConfig;
  /** Days a delivery attempt (webhook or notification) stays in the delivery log; longer than every retry window. */
  deliveryLogDays: number;
  logLevel: LogLevelName;
}

export interface WebhooksConfig {
  timeoutMs: number;
  retryHours: number;
  retryInitialMs: number;
  /** Keep-alive connections per registration: the worker's deliveries go one at a time, manual re-sends beside them. */
  connections: number;
  /** Lifts the refusal of loopback, private, link-local and metadata addresses (development and tests only). */
  allowPrivateNetworks: boolean;
  /** Seals signing secrets at rest; null: a key kept in DATA_DIR. */
  secretKey: string | null;
}

/**
 * WEBHOOK_/PUSH_ALLOW_PRIVATE_NETWORKS: for development and tests only
 * (docs/security.md): in production they would let anyone who registers a
 * webhook or a push subscription reach the service's own network.
 */
function allowPrivateNetworks(env: Env, name: string, appEnv: AppConfig['env']): boolean {
  const allowed = oneOf(env, name, ['true', 'false'], 'false') === 'true';
  if (allowed && appEnv === 'production') {
    throw new ConfigError(`${name}=true is for development and tests only: it lets registered URLs reach loopback and private addresses; unset it with APP_ENV=production`);
  }
  return allowed;
}

function webhooksConfig(env: Env, appEnv: AppConfig['env']): WebhooksConfig {
  const retryHours = Number(env.WEBHOOK_RETRY_HOURS || 24);
  if (!Number.isFinite(retryHours) || retryHours < 0 || retryHours > 720) {
    throw new ConfigError(`WEBHOOK_RETRY_HOURS must be a number of hours from 0 to 720 (got "${env.WEBHOOK_RETRY_HOURS}")`);
  }
  const secretKey = secretVariable(env, 'WEBHOOK_SECRET_KEY', appEnv);
  return {
    timeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000),
    retryHours,
    retryInitialMs: integer(env, 'WEBHOOK_RETRY_INITIAL_MS', 5000, 1, 3_600_000),
    connections: integer(env, 'WEBHOOK_CONNECTIONS', 4, 1, 256),
    allowPrivateNetworks: allowPrivateNetworks(env, 'WEBHOOK_ALLOW_PRIVATE_NETWORKS', appEnv),
    secretKey,
  };
}

export interface LiveConfig {
  /** Events a live subscriber may fall behind by before it is disconnected (it resumes with its last cursor). */
  queueLimit: number;
  /** The longest a stream with nothing to send stays quiet (at most 15 s): its comment line goes out a margin before (live.controller.ts). */
  heartbeatMs: number;
  /** graphql-ws: the server pings a socket this often and drops it when no pong came by the next ping. */
  graphqlWsPingMs: number;
}

export interface NotificationsConfig {
  /** smtp:// or smtps:// with credentials; null: no mail is sent (decisions say smtp_not_configured). */
  smtpUrl: string | null;
  /** The From of every mail. */
  from: string;
  /** Where responders open the console: links are `<consoleUrl>/incidents/<id>`. */
  consoleUrl: string;
  /** Both keys, base64url; null: a pair generated once into DATA_DIR. */
  vapidKeys: { publicKey: string; privateKey: string } | null;
  /** The VAPID `sub`: a mailto: or https: URL the push services can reach the operator at. */
  vapidSubject: string;
  timeoutMs: number;
  retryInitialMs: number;
  retryHours: number;
  /** Lifts the refusal of push endpoints at loopback, private and link-local addresses (development and tests only). */
  allowPrivateNetworks: boolean;
}

const BASE64URL_KEY = /^[A-Za-z0-9_-]{20,}$/;

function notificationsConfig(env: Env, port: number, appEnv: AppConfig['env']): NotificationsConfig {
  const smtpUrl = env.SMTP_URL || null;
  if (smtpUrl !== null && !/^smtps?:\/\/[^/]+/.test(smtpUrl)) throw new ConfigError(`SMTP_URL must be like smtp://user:password@mail.example.com:587 or smtps://… (got "${smtpUrl.replace(/\/\/[^@/]*@/, '//…@')}")`);
  const publicKey = env.VAPID_PUBLIC_KEY || undefined;
  const privateKey = env.VAPID_PRIVATE_KEY || undefined;
  if ((publicKey === undefined) !== (privateKey === undefined)) throw new ConfigError('VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY are set together, or neither (a pair is then generated into DATA_DIR)');
  if (publicKey !== undefined && !(BASE64URL_KEY.test(publicKey) && BASE64URL_KEY.test(privateKey!))) {
    throw new ConfigError('VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY must be base64url, as `npx web-push generate-vapid-keys` prints them');
  }
  const vapidSubject = env.VAPID_SUBJECT || 'mailto:incidents@localhost';
  if (!/^(mailto:|https:\/\/)\S+$/.test(vapidSubject)) throw new ConfigError(`VAPID_SUBJECT must be a mailto: or https: URL (got "${vapidSubject}")`);
  const consoleUrl = (env.CONSOLE_URL || `http://localhost:${port}`).replace(/\/+$/, '');
  if (!/^https?:\/\/\S+$/.test(consoleUrl)) throw new ConfigError(`CONSOLE_URL must be an http(s) URL (got "${consoleUrl}")`);
  const retryHours = Number(env.NOTIFY_RETRY_HOURS || 24);
  if (!Number.isFinite(retryHours) || retryHours < 0 || retryHours > 720) {
    throw new ConfigError(`NOTIFY_RETRY_HOURS must be a number of hours from 0 to 720 (got "${env.NOTIFY_RETRY_HOURS}")`);
  }
  return {
    smtpUrl,
    from: env.NOTIFY_FROM || 'Incident service <incidents@localhost>',
    consoleUrl,
    vapidKeys: publicKey === undefined ? null : { publicKey, privateKey: privateKey! },
    vapidSubject,
    timeoutMs: integer(env, 'NOTIFY_TIMEOUT_MS', 10_000, 100, 120_000),
    retryInitialMs: integer(env, 'NOTIFY_RETRY_INITIAL_MS', 5000, 1, 3_600_000),
    retryHours,
    allowPrivateNetworks: allowPrivateNetworks(env, 'PUSH_ALLOW_PRIVATE_NETWORKS', appEnv),
  };
}

export interface HttpConfig {
  /** Browser origins allowed to call the API (CORS); none by default. */
  corsOrigins: string[];
  /** A request must have arrived completely within this time (slow clients are cut off with 408). */
  requestTimeoutMs: number;
  /** A request's headers must have arrived within this time (or requestTimeoutMs, if shorter). */
  headersTimeoutMs: number;
  /** On SIGTERM, how long in-flight requests may take before their connections are closed. */
  shutdownGraceMs: number;
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevelName = (typeof LOG_LEVELS)[number];

const ORIGIN = /^https?:\/\/[a-z0-9.-]+(:\d{1,5})?$/i;

function httpConfig(env: Env): HttpConfig {
  const corsOrigins = (env.CORS_ORIGINS ?? '')
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);
  const bad = corsOrigins.find((origin) => !ORIGIN.test(origin));
  if (bad) throw new ConfigError(`CORS_ORIGINS must list origins like https://app.example.com, comma-separated (got "${bad}")`);
  return {
    corsOrigins,
    requestTimeoutMs: integer(env, 'REQUEST_TIMEOUT_MS', 30_000, 100, 600_000),
    headersTimeoutMs: integer(env, 'HEADERS_TIMEOUT_MS', 10_000, 100, 600_000),
    shutdownGraceMs: integer(env, 'SHUTDOWN_GRACE_MS', 10_000, 0, 600_000),
  };
}

export type PolicyConfig = { file: string } & ({ mode: 'embedded' } | { mode: 'opa'; opaUrl: string; timeoutMs: number });

function policyConfig(env: Env): PolicyConfig {
  const mode = oneOf(env, 'POLICY_MODE', ['embedded', 'opa'], 'embedded');
  const file = resolve(process.cwd(), env.POLICY_FILE || 'policy/timeline-policy.json');
  if (mode === 'embedded') return { mode, file };
  if (!env.OPA_URL || !/^https?:\/\//.test(env.OPA_URL)) {
    throw new ConfigError('POLICY_MODE=opa needs OPA_URL, the http(s) address of the Open Policy Agent');
  }
  return { mode, file, opaUrl: env.OPA_URL, timeoutMs: integer(env, 'OPA_TIMEOUT_MS', 500, 1, 60_000) };
}

/**
 * `keyRemovalMs`: how soon a key removed from the JWKS stops verifying. Signing
 * keys are cached for half of it and verified tokens remembered for the other
 * half, so the two caches together never exceed it.
 */
export type JwtConfig = { issuer?: string; audience?: string; keyRemovalMs: number } & (
  | { kind: 'secret'; secret: string }
  | { kind: 'jwks'; jwksUrl: string }
);

/** Signs development tokens when JWT_SECRET is unset; refused in production. */
export const DEVELOPMENT_JWT_SECRET = 'incident-service-development-secret-do-not-use-in-production';
/** An HS256 key of at least 256 bits (RFC 7518, 3.2), as characters. */
const MIN_SECRET_LENGTH = 32;

/**
 * A secret from the environment (JWT_SECRET, CURSOR_SECRET, WEBHOOK_SECRET_KEY),
 * or null when unset. The development secret is printed in the source, so anyone
 * can sign or seal with it: production refuses it under every name, surrounding
 * whitespace or not, as it refuses no secret at all.
 */
function secretVariable(env: Env, name: string, appEnv: AppConfig['env']): string | null {
  const secret = env[name] || null;
  if (secret === null) return null;
  if (appEnv === 'production' && secret.trim() === DEVELOPMENT_JWT_SECRET) {
    throw new ConfigError(`${name} is the development secret, which is published in the source (anyone can sign with it): set a secret of your own with APP_ENV=production`);
  }
  if (secret.length < MIN_SECRET_LENGTH) throw new ConfigError(`${name} must be at least ${MIN_SECRET_LENGTH} characters`);
  return secret;
}

function jwtConfig(env: Env, appEnv: AppConfig['env']): JwtConfig {
  const issuer = env.JWT_ISSUER || undefined;
  const audience = env.JWT_AUDIENCE || undefined;
  // docs/security.md promises a minute.
  const keyRemovalMs = integer(env, 'JWT_KEY_REMOVAL_MS', 60_000, 100, 3_600_000);
  if (env.JWT_JWKS_URL) {
    if (!/^https?:\/\//.test(env.JWT_JWKS_URL)) throw new ConfigError('JWT_JWKS_URL must be an http(s) URL');
    return { kind: 'jwks', jwksUrl: env.JWT_JWKS_URL, issuer, audience, keyRemovalMs };
  }
  const secret = secretVariable(env, 'JWT_SECRET', appEnv) ?? (appEnv === 'development' ? DEVELOPMENT_JWT_SECRET : undefined);
  if (!secret) throw new ConfigError('production needs JWT_JWKS_URL (RS256/ES256 keys) or JWT_SECRET (HS256)');
  return { kind: 'secret', secret, issuer, audience, keyRemovalMs };
}

/** A configuration mistake: reported as one line, and the process exits non-zero. */
export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const value = env[name] ?? fallback;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new ConfigError(`${name} must be one of ${allowed.join(', ')} (got "${value}")`);
  }
  return value as T;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max} (got "${raw}")`);
  }
  return value;
}

function url(env: Env, name: string, schemes: RegExp, example: string, backend: string): string {
  const value = env[name];
  if (!value) throw new ConfigError(`${backend} needs ${name}, e.g. ${example}`);
  if (!schemes.test(value)) throw new ConfigError(`${name} must be a connection string like ${example} (got "${value}")`);
  return value;
}

const POSTGRES_URL_EXAMPLE = 'postgres://incidents@localhost:5432/incidents';

function backends(env: Env): Pick<AppConfig, 'eventStore' | 'readStore' | 'projector'> {
  const eventStoreKind = oneOf(env, 'EVENT_STORE', ['sqlite', 'kurrentdb', 'postgres'], 'sqlite');
  const readStoreKind = oneOf(env, 'READ_STORE', ['sqlite', 'mongodb', 'postgres'], 'sqlite');
  // Both stores may share one PostgreSQL database: one variable names it.
  const postgresUrl = (backend: string) => url(env, 'POSTGRES_URL', /^postgres(ql)?:\/\//, POSTGRES_URL_EXAMPLE, backend);
  const eventStore =
    eventStoreKind === 'kurrentdb'
      ? { kind: eventStoreKind, url: url(env, 'KURRENTDB_URL', /^(kurrentdb|esdb|kdb)(\+discover)?:\/\//, 'kurrentdb://localhost:2113?tls=false', 'EVENT_STORE=kurrentdb') }
      : eventStoreKind === 'postgres'
        ? { kind: eventStoreKind, url: postgresUrl('EVENT_STORE=postgres') }
        : { kind: eventStoreKind };
  const readStore =
    readStoreKind === 'mongodb'
      ? { kind: readStoreKind, url: url(env, 'MONGODB_URL', /^mongodb(\+srv)?:\/\//, 'mongodb://localhost:27017/incidents', 'READ_STORE=mongodb') }
      : readStoreKind === 'postgres'
        ? { kind: readStoreKind, url: postgresUrl('READ_STORE=postgres') }
        : { kind: readStoreKind };
  // KurrentDB log positions are 128-bit; SQLite and PostgreSQL read models keep 64-bit checkpoints.
  if (eventStore.kind === 'kurrentdb' && readStore.kind !== 'mongodb') {
    throw new ConfigError('EVENT_STORE=kurrentdb needs READ_STORE=mongodb');
  }
  return { eventStore, readStore, projector: oneOf(env, 'PROJECTOR', ['embedded', 'external'], 'embedded') } as Pick<
    AppConfig,
    'eventStore' | 'readStore' | 'projector'
  >;
}

function consoleOidcClientId(env: Env): string | null {
  const clientId = env.CONSOLE_OIDC_CLIENT_ID || null;
  if (clientId !== null && !env.JWT_ISSUER) throw new ConfigError('CONSOLE_OIDC_CLIENT_ID needs JWT_ISSUER, the OpenID provider the console signs in at');
  return clientId;
}

/**
 * The delivery log keeps a message's attempts while it may still be retried:
 * a retry window counts from the message's first attempt in the log.
 */
function deliveryLogDays(env: Env, webhooks: WebhooksConfig, notifications: NotificationsConfig): number {
  const days = integer(env, 'DELIVERY_LOG_DAYS', 90, 2, 3650);
  const longestRetryHours = Math.max(webhooks.retryHours, notifications.retryHours);
  if (days * 24 <= longestRetryHours) {
    throw new ConfigError(`DELIVERY_LOG_DAYS must be longer than the longest retry window (${longestRetryHours} hours, WEBHOOK_RETRY_HOURS or NOTIFY_RETRY_HOURS): got ${days} days`);
  }
  return days;
}

export function loadConfig(env: Env = process.env): AppConfig {
  const appEnv = oneOf(env, 'APP_ENV', ['development', 'production'], 'development');
  const dataDir = env.DATA_DIR || './data';
  const port = integer(env, 'PORT', 3000, 0, 65535);
  const webhooks = webhooksConfig(env, appEnv);
  const notifications = notificationsConfig(env, port, appEnv);
  return {
    env: appEnv,
    // Development serves incident REST without a token, so it stays on loopback unless told otherwise.
    host: env.HOST || (appEnv === 'development' ? '127.0.0.1' : '0.0.0.0'),
    port,
    dataDir: isAbsolute(dataDir) ? dataDir : resolve(process.cwd(), dataDir),
    ...backends(env),
    projectionWaitMs: integer(env, 'PROJECTION_WAIT_MS', 5000, 1, 600_000),
    jwt: jwtConfig(env, appEnv),
    cursorSecret: secretVariable(env, 'CURSOR_SECRET', appEnv),
    policy: policyConfig(env),
    warRoomUrlTemplate: env.WAR_ROOM_URL || null,
    consoleOidcClientId: consoleOidcClientId(env),
    ledgerSigningKey: env.LEDGER_SIGNING_KEY || null,
    ledgerHeadIntervalMs: integer(env, 'LEDGER_HEAD_INTERVAL_MS', 60_000, 1000, 86_400_000),
    http: httpConfig(env),
    webhooks,
    live: {
      queueLimit: integer(env, 'LIVE_QUEUE_LIMIT', 500, 1, 100_000),
      heartbeatMs: integer(env, 'LIVE_HEARTBEAT_MS', 15_000, 100, 15_000),
      graphqlWsPingMs: integer(env, 'GRAPHQL_WS_PING_MS', 12_000, 1000, 600_000),
    },
    notifications,
    deliveryLogDays: deliveryLogDays(env, webhooks, notifications),
    logLevel: oneOf(env, 'LOG_LEVEL', LOG_LEVELS, 'info'),
  };
}
