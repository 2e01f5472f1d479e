import { CONFIG_SCHEMA } from './config.schema';
import { ConfigError, loadConfig } from './app-config';

/** The published config schema is written next to the loader; these checks keep the two from drifting apart. */
describe('CONFIG_SCHEMA agrees with loadConfig', () => {
  const base = {
    JWT_SECRET: 'x'.repeat(40),
    OPA_URL: 'http://opa:8181',
    KURRENTDB_URL: 'kurrentdb://localhost:2113?tls=false',
    MONGODB_URL: 'mongodb://localhost:27017/incidents',
    POSTGRES_URL: 'postgres://incidents@localhost:5432/incidents',
    READ_STORE: 'mongodb',
  };
  const properties = CONFIG_SCHEMA.properties as Record<string, { enum?: readonly string[]; minimum?: number; maximum?: number; default?: unknown }>;

  it.each(Object.entries(properties).filter(([, p]) => p.enum))('%s accepts exactly its enum values', (name, property) => {
    for (const value of property.enum!) {
      // Only READ_STORE=mongodb pairs with KurrentDB: check the others with the embedded event store.
      const env = name === 'READ_STORE' && value !== 'mongodb' ? { ...base, EVENT_STORE: 'sqlite' } : { ...base, EVENT_STORE: name === 'EVENT_STORE' ? value : 'kurrentdb' };
      expect(() => loadConfig({ ...env, [name]: value })).not.toThrow();
    }
    expect(() => loadConfig({ ...base, [name]: 'not-a-value' })).toThrow(ConfigError);
  });

  it.each(Object.entries(properties).filter(([, p]) => p.minimum !== undefined))('%s accepts its bounds and refuses beyond them', (name, property) => {
    expect(() => loadConfig({ ...base, POLICY_MODE: 'opa', [name]: String(property.minimum) })).not.toThrow();
    expect(() => loadConfig({ ...base, POLICY_MODE: 'opa', [name]: String(property.maximum) })).not.toThrow();
    expect(() => loadConfig({ ...base, POLICY_MODE: 'opa', [name]: String(property.maximum! + 1) })).toThrow(ConfigError);
  });

  it('publishes the defaults the loader applies', () => {
    const config = loadConfig({});
    expect(properties.APP_ENV.default).toBe(config.env);
    expect(properties.PORT.default).toBe(config.port);
    expect(properties.PROJECTION_WAIT_MS.default).toBe(config.projectionWaitMs);
    expect(properties.POLICY_MODE.default).toBe(config.policy.mode);
    expect(properties.JWT_KEY_REMOVAL_MS.default).toBe(config.jwt.keyRemovalMs);
    expect(properties.LIVE_QUEUE_LIMIT.default).toBe(config.live.queueLimit);
    expect(properties.LIVE_HEARTBEAT_MS.default).toBe(config.live.heartbeatMs);
    expect(properties.DELIVERY_LOG_DAYS.default).toBe(config.deliveryLogDays);
    expect(properties.HEADERS_TIMEOUT_MS.default).toBe(config.http.headersTimeoutMs);
    expect(properties.WEBHOOK_CONNECTIONS.default).toBe(config.webhooks.connections);
    expect(properties.GRAPHQL_WS_PING_MS.default).toBe(config.live.graphqlWsPingMs);
    expect(properties.LEDGER_HEAD_INTERVAL_MS.default).toBe(config.ledgerHeadIntervalMs);
    expect(config.dataDir.endsWith(String(properties.DATA_DIR.default).replace('./', '/'))).toBe(true);
  });
});
