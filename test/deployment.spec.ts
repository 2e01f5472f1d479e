import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { loadConfig } from '@im/config';
import { loadTimelinePolicy } from '@im/policy';

const ROOT = join(__dirname, '..');
const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, { environment?: Record<string, string>; volumes?: string[]; command?: string[]; depends_on?: Record<string, unknown> }>;
};

/** What compose would substitute for ${VAR:?…}, given the variables a user sets. */
const substitute = (env: Record<string, string>, vars: Record<string, string>) =>
  Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v).replace(/\$\{(\w+)(:\?[^}]*)?\}/g, (_, name: string) => vars[name] ?? '')]));

describe('docker-compose.yml', () => {
  const vars = { JWT_SECRET: 'a'.repeat(64) };

  it('brings up KurrentDB, MongoDB, OPA, the api and the projector', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['api', 'kurrentdb', 'mongo', 'opa', 'projector']);
  });

  it('configures the api for the production backends, an external projector and OPA, as the config loader accepts them', () => {
    const config = loadConfig(substitute(compose.services.api.environment!, vars));
    expect(config).toMatchObject({
      env: 'production',
      eventStore: { kind: 'kurrentdb', url: 'kurrentdb://kurrentdb:2113?tls=false' },
      readStore: { kind: 'mongodb', url: 'mongodb://mongo:27017/incidents?replicaSet=rs0' },
      projector: 'external',
      policy: { mode: 'opa', opaUrl: 'http://opa:8181' },
    });
  });

  it('runs the projector on the same stores', () => {
    expect(compose.services.projector.command).toEqual(['node', 'dist/apps/projector/main.js', 'run']);
    const projector = loadConfig(substitute(compose.services.projector.environment!, vars));
    const api = loadConfig(substitute(compose.services.api.environment!, vars));
    expect(projector.eventStore).toEqual(api.eventStore);
    expect(projector.readStore).toEqual(api.readStore);
  });

  it('refuses to start without a JWT secret rather than run with a default', () => {
    expect(compose.services.api.environment!.JWT_SECRET).toMatch(/\$\{JWT_SECRET:\?/);
    expect(() => loadConfig(substitute(compose.services.api.environment!, {}))).toThrow(/JWT_SECRET|JWT_JWKS_URL/);
  });

  it('gives OPA the shipped Rego and the same policy file, where timeline.rego reads it (data.timeline_policy)', () => {
    const volumes = compose.services.opa.volumes!;
    expect(volumes).toContain('./policy/timeline.rego:/policies/timeline.rego:ro');
    expect(volumes).toContain('./policy/timeline-policy.json:/policies/timeline_policy/data.json:ro');
    expect(readFileSync(join(ROOT, 'policy/timeline.rego'), 'utf8')).toContain('policy := data.timeline_policy');
    expect(() => loadTimelinePolicy(join(ROOT, 'policy/timeline-policy.json'))).not.toThrow();
  });
});
