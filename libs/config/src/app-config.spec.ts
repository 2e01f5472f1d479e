import { ConfigError, DEVELOPMENT_JWT_SECRET, loadConfig } from './app-config';

describe('loadConfig', () => {
  it('defaults to development on loopback port 3000 with ./data and the embedded stores', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      env: 'development',
      host: '127.0.0.1',
      port: 3000,
      eventStore: { kind: 'sqlite' },
      readStore: { kind: 'sqlite' },
      projector: 'embedded',
      projectionWaitMs: 5000,
    });
    expect(config.dataDir).toBe(`${process.cwd()}/data`);
  });

  it('listens on every interface in production unless HOST says otherwise', () => {
    const production = { APP_ENV: 'production', JWT_SECRET: 's'.repeat(32) };
    expect(loadConfig(production).host).toBe('0.0.0.0');
    expect(loadConfig({ ...production, HOST: '10.0.0.5' }).host).toBe('10.0.0.5');
  });

  it('names the production backends and their URLs', () => {
    const config = loadConfig({ EVENT_STORE: 'kurrentdb', KURRENTDB_URL: 'kurrentdb://kdb:2113?tls=false', READ_STORE: 'mongodb', MONGODB_URL: 'mongodb://mongo:27017/im', PROJECTOR: 'external' });
    expect(config).toMatchObject({
      eventStore: { kind: 'kurrentdb', url: 'kurrentdb://kdb:2113?tls=false' },
      readStore: { kind: 'mongodb', url: 'mongodb://mongo:27017/im' },
      projector: 'external',
    });
  });

  it('puts both stores in the one PostgreSQL database POSTGRES_URL names', () => {
    const url = 'postgresql://incidents:secret@db:5432/incidents?sslmode=require';
    expect(loadConfig({ EVENT_STORE: 'postgres', READ_STORE: 'postgres', POSTGRES_URL: url })).toMatchObject({
      eventStore: { kind: 'postgres', url },
      readStore: { kind: 'postgres', url },
    });
  });

  it('signs with a development secret only in development, and prefers JWKS when given', () => {
    expect(loadConfig({}).jwt).toMatchObject({ kind: 'secret' });
    expect(loadConfig({ APP_ENV: 'production', JWT_JWKS_URL: 'https://idp.example/jwks.json', JWT_ISSUER: 'idp' }).jwt).toEqual({
      kind: 'jwks',
      jwksUrl: 'https://idp.example/jwks.json',
      issuer: 'idp',
      audience: undefined,
      // A key removed from the JWKS stops verifying within a minute (docs/security.md).
      keyRemovalMs: 60_000,
    });
  });

  it.each(['JWT_SECRET', 'CURSOR_SECRET', 'WEBHOOK_SECRET_KEY'])('refuses the published development secret as %s in production, in one line that names it', (name) => {
    const production = { APP_ENV: 'production', JWT_SECRET: 's'.repeat(32) };
    for (const given of [DEVELOPMENT_JWT_SECRET, ` ${DEVELOPMENT_JWT_SECRET}\n`]) {
      expect(() => loadConfig({ ...production, [name]: given })).toThrow(
        new ConfigError(`${name} is the development secret, which is published in the source (anyone can sign with it): set a secret of your own with APP_ENV=production`),
      );
    }
    // Development may name it: it is what development signs with anyway.
    expect(() => loadConfig({ [name]: DEVELOPMENT_JWT_SECRET })).not.toThrow();
  });

  it('keeps delivery attempts 90 days unless DELIVERY_LOG_DAYS says otherwise (longer than any retry window)', () => {
    expect(loadConfig({}).deliveryLogDays).toBe(90);
    expect(loadConfig({ DELIVERY_LOG_DAYS: '31', WEBHOOK_RETRY_HOURS: '720' }).deliveryLogDays).toBe(31);
  });

  it('reads the notification settings: SMTP, the console link, VAPID keys (generated when unset)', () => {
    expect(loadConfig({ PORT: '8080' }).notifications).toMatchObject({ smtpUrl: null, consoleUrl: 'http://localhost:8080', vapidKeys: null, vapidSubject: 'mailto:incidents@localhost', retryInitialMs: 5000, retryHours: 24 });
    const set = loadConfig({ SMTP_URL: 'smtps://u:p@mail.example.com', NOTIFY_FROM: 'IM <im@example.com>', CONSOLE_URL: 'https://im.example.com/', VAPID_PUBLIC_KEY: 'BPublicKeyBase64urlxxxxx', VAPID_PRIVATE_KEY: 'PrivateKeyBase64url_xxxx', VAPID_SUBJECT: 'https://im.example.com' });
    expect(set.notifications).toMatchObject({
      smtpUrl: 'smtps://u:p@mail.example.com',
      from: 'IM <im@example.com>',
      consoleUrl: 'https://im.example.com',
      vapidKeys: { publicKey: 'BPublicKeyBase64urlxxxxx', privateKey: 'PrivateKeyBase64url_xxxx' },
      vapidSubject: 'https://im.example.com',
    });
  });

  it.each([
    [{ APP_ENV: 'staging' }, 'APP_ENV must be one of development, production (got "staging")'],
    [{ PORT: 'http' }, 'PORT must be a whole number from 0 to 65535 (got "http")'],
    [{ PORT: '70000' }, 'PORT must be a whole number'],
    [{ EVENT_STORE: 'mysql' }, 'EVENT_STORE must be one of sqlite, kurrentdb, postgres (got "mysql")'],
    [{ EVENT_STORE: 'postgres' }, 'EVENT_STORE=postgres needs POSTGRES_URL, e.g. postgres://'],
    [{ READ_STORE: 'postgres', POSTGRES_URL: 'mysql://db/x' }, 'POSTGRES_URL must be a connection string like postgres://'],
    [{ EVENT_STORE: 'kurrentdb', KURRENTDB_URL: 'kurrentdb://k:2113', READ_STORE: 'postgres', POSTGRES_URL: 'postgres://db/x' }, 'EVENT_STORE=kurrentdb needs READ_STORE=mongodb'],
    [{ READ_STORE: 'redis' }, 'READ_STORE must be one of sqlite, mongodb'],
    [{ EVENT_STORE: 'kurrentdb', READ_STORE: 'mongodb', MONGODB_URL: 'mongodb://m' }, 'EVENT_STORE=kurrentdb needs KURRENTDB_URL'],
    [{ EVENT_STORE: 'kurrentdb', KURRENTDB_URL: 'http://k:2113' }, 'KURRENTDB_URL must be a'],
    [{ EVENT_STORE: 'kurrentdb', KURRENTDB_URL: 'kurrentdb://k:2113' }, 'EVENT_STORE=kurrentdb needs READ_STORE=mongodb'],
    [{ READ_STORE: 'mongodb' }, 'READ_STORE=mongodb needs MONGODB_URL'],
    [{ PROJECTOR: 'remote' }, 'PROJECTOR must be one of embedded, external'],
    [{ PROJECTION_WAIT_MS: '0' }, 'PROJECTION_WAIT_MS must be a whole number'],
    [{ APP_ENV: 'production' }, 'production needs JWT_JWKS_URL (RS256/ES256 keys) or JWT_SECRET (HS256)'],
    [{ APP_ENV: 'production', JWT_SECRET: 's'.repeat(32), WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' }, 'WEBHOOK_ALLOW_PRIVATE_NETWORKS=true is for development and tests only'],
    [{ APP_ENV: 'production', JWT_SECRET: 's'.repeat(32), PUSH_ALLOW_PRIVATE_NETWORKS: 'true' }, 'PUSH_ALLOW_PRIVATE_NETWORKS=true is for development and tests only'],
    [{ JWT_SECRET: 'short' }, 'JWT_SECRET must be at least 32 characters'],
    [{ JWT_JWKS_URL: 'keys.json' }, 'JWT_JWKS_URL must be an http(s) URL'],
    [{ POLICY_MODE: 'opa' }, 'POLICY_MODE=opa needs OPA_URL'],
    [{ CONSOLE_OIDC_CLIENT_ID: 'console' }, 'CONSOLE_OIDC_CLIENT_ID needs JWT_ISSUER'],
    [{ POLICY_MODE: 'rego' }, 'POLICY_MODE must be one of embedded, opa'],
    [{ POLICY_MODE: 'opa', OPA_URL: 'http://opa:8181', OPA_TIMEOUT_MS: '0' }, 'OPA_TIMEOUT_MS must be a whole number'],
    [{ SMTP_URL: 'mail.example.com' }, 'SMTP_URL must be like smtp://'],
    [{ DELIVERY_LOG_DAYS: '1' }, 'DELIVERY_LOG_DAYS must be a whole number from 2 to 3650 (got "1")'],
    [{ WEBHOOK_RETRY_HOURS: '720', DELIVERY_LOG_DAYS: '30' }, 'DELIVERY_LOG_DAYS must be longer than the longest retry window (720 hours, WEBHOOK_RETRY_HOURS or NOTIFY_RETRY_HOURS): got 30 days'],
    [{ NOTIFY_RETRY_HOURS: '48', DELIVERY_LOG_DAYS: '2' }, 'DELIVERY_LOG_DAYS must be longer than the longest retry window (48 hours'],
    [{ SMTP_URL: 'http://user:pw@mail' }, 'SMTP_URL must be like smtp://user:password@mail.example.com:587 or smtps://… (got "http://…@mail")'],
    [{ VAPID_PUBLIC_KEY: 'BEl62iUYgUivxIkv69yViEuiBIa-Ib9-SkvMeAtA3LFgDzkrxZJjSgSnfckjBJuBkr3qBUYIHBQFLXYp5Nksh8U' }, 'VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY are set together'],
    [{ VAPID_PUBLIC_KEY: 'a b', VAPID_PRIVATE_KEY: 'c' }, 'must be base64url'],
    [{ VAPID_SUBJECT: 'ops@example.com' }, 'VAPID_SUBJECT must be a mailto: or https: URL'],
    [{ CONSOLE_URL: 'im.example.com' }, 'CONSOLE_URL must be an http(s) URL'],
  ])('refuses %j with one clear line', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});
