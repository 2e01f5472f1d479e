import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { parse } from 'yaml';
import { loadConfig } from '@im/config';
import { loadTimelinePolicy } from '@im/policy';
import { NODE_FLAGS, startServer } from './support/server-process';
import { tempDir } from './support/temp-dir';

const ROOT = join(__dirname, '..');
const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<
    string,
    { image?: string; environment?: Record<string, string>; volumes?: string[]; command?: string[]; depends_on?: Record<string, unknown>; healthcheck?: { test: string[] } }
  >;
};

/**
 * Runs the mongo service's health check script (mongosh --eval) against a
 * stand-in for the shell's rs, db and quit: the exit status compose sees.
 */
function mongoHealthCheck(server: { initiated: boolean; writablePrimary: boolean }): { exitCode: number; initiated: unknown[] } {
  const command = compose.services.mongo.healthcheck!.test;
  expect(command.slice(0, 2)).toEqual(['CMD', 'mongosh']);
  const script = command[command.indexOf('--eval') + 1];
  const initiated: unknown[] = [];
  const quit = Symbol('quit');
  let exitCode = 0;
  const shell = {
    rs: {
      status: () => {
        if (!server.initiated) throw new Error('MongoServerError: no replset config has been received');
        return { ok: 1 };
      },
      initiate: (config: unknown) => (initiated.push(config), { ok: 1 }),
    },
    db: { hello: () => ({ isWritablePrimary: server.writablePrimary }) },
    quit: (code = 0) => {
      exitCode = code;
      throw quit;
    },
  };
  try {
    runInNewContext(script, shell);
  } catch (error) {
    if (error !== quit) throw error;
  }
  return { exitCode, initiated };
}

/** What compose would substitute for ${VAR}, ${VAR:?…} and ${VAR:-default}, given the variables a user sets. */
const substitute = (env: Record<string, string>, vars: Record<string, string>) =>
  Object.fromEntries(
    Object.entries(env).map(([k, v]) => [k, String(v).replace(/\$\{(\w+)(?::\?[^}]*|:-([^}]*))?\}/g, (_, name: string, fallback?: string) => vars[name] || (fallback ?? ''))]),
  );

describe('docker-compose.yml', () => {
  const vars = { JWT_SECRET: 'a'.repeat(64) };

  it('brings up KurrentDB, MongoDB, OPA, the api and the projector; the postgres profile PostgreSQL, two apis and two projectors', () => {
    const profiled = Object.keys(compose.services).filter((name) => (compose.services[name] as { profiles?: string[] }).profiles?.includes('postgres'));
    expect(Object.keys(compose.services).filter((name) => !profiled.includes(name)).sort()).toEqual(['api', 'kurrentdb', 'mongo', 'opa', 'projector']);
    expect(profiled.sort()).toEqual(['pg-api-1', 'pg-api-2', 'pg-projector-1', 'pg-projector-2', 'postgres']);
  });

  it('runs every process of the postgres profile on the one database, the apis serving only and the projectors competing for the leases', () => {
    const configOf = (name: string) => loadConfig(substitute(compose.services[name].environment!, vars));
    const url = 'postgres://incidents:incidents@postgres:5432/incidents';
    for (const name of ['pg-api-1', 'pg-api-2', 'pg-projector-1', 'pg-projector-2']) {
      expect(configOf(name)).toMatchObject({ env: 'production', eventStore: { kind: 'postgres', url }, readStore: { kind: 'postgres', url } });
    }
    expect([configOf('pg-api-1').projector, configOf('pg-api-2').projector]).toEqual(['external', 'external']);
    for (const name of ['pg-projector-1', 'pg-projector-2']) expect(compose.services[name].command).toEqual(['node', ...NODE_FLAGS, 'dist/apps/projector/main.js', 'run']);
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
    expect(compose.services.projector.command).toEqual(['node', ...NODE_FLAGS, 'dist/apps/projector/main.js', 'run']);
    const projector = loadConfig(substitute(compose.services.projector.environment!, vars));
    const api = loadConfig(substitute(compose.services.api.environment!, vars));
    expect(projector.eventStore).toEqual(api.eventStore);
    expect(projector.readStore).toEqual(api.readStore);
  });

  it('refuses to start without a JWT secret rather than run with a default', () => {
    expect(compose.services.api.environment!.JWT_SECRET).toMatch(/\$\{JWT_SECRET:\?/);
    expect(() => loadConfig(substitute(compose.services.api.environment!, {}))).toThrow(/JWT_SECRET|JWT_JWKS_URL/);
  });

  it('pins KurrentDB to a full release tag, 25.1 or later (the atomic multi-stream append the dedup keys need)', () => {
    const tag = /^docker\.kurrent\.io\/kurrent-latest\/kurrentdb:(\d+)\.(\d+)\.(\d+)$/.exec(compose.services.kurrentdb.image!);
    expect(tag).not.toBeNull();
    const [major, minor] = tag!.slice(1).map(Number);
    expect(major > 25 || (major === 25 && minor >= 1)).toBe(true);
  });

  it('initiates the MongoDB replica set and reports healthy only once this member is a writable primary', () => {
    const fresh = mongoHealthCheck({ initiated: false, writablePrimary: false });
    expect(fresh.initiated).toEqual([{ _id: 'rs0', members: [{ _id: 0, host: 'mongo:27017' }] }]);
    expect(fresh.exitCode).not.toBe(0);
    // Initiated, still electing: rs.status() answers ok, but writes would fail.
    expect(mongoHealthCheck({ initiated: true, writablePrimary: false })).toEqual({ exitCode: 1, initiated: [] });
    expect(mongoHealthCheck({ initiated: true, writablePrimary: true })).toEqual({ exitCode: 0, initiated: [] });
  });

  it('gives OPA the shipped Rego and the same policy file, where timeline.rego reads it (data.timeline_policy)', () => {
    const volumes = compose.services.opa.volumes!;
    expect(volumes).toContain('./policy/timeline.rego:/policies/timeline.rego:ro');
    expect(volumes).toContain('./policy/timeline-policy.json:/policies/timeline_policy/data.json:ro');
    expect(readFileSync(join(ROOT, 'policy/timeline.rego'), 'utf8')).toContain('policy := data.timeline_policy');
    expect(() => loadTimelinePolicy(join(ROOT, 'policy/timeline-policy.json'))).not.toThrow();
  });
});

describe('the V8 flags the api and the projector run with', () => {
  const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  const flagged = (command: string, main: string) => expect(command).toContain(`node ${NODE_FLAGS.join(' ')} ${main}`);

  it('are the same in the npm scripts, the image and the tests\' servers (the compose file\'s projector: above)', () => {
    flagged(scripts.start, 'dist/apps/api/main.js');
    flagged(scripts['start:prod'], 'dist/apps/api/main.js');
    flagged(scripts.projector, 'dist/apps/projector/main.js run');
    const cmd = readFileSync(join(ROOT, 'Dockerfile'), 'utf8').match(/^CMD (.+)$/m)![1];
    expect(JSON.parse(cmd)).toEqual(['node', ...NODE_FLAGS, 'dist/apps/api/main.js']);
  });

  it('come with NODE_ENV=production wherever the api serves as in production: start:prod, the image and the tests\' servers', async () => {
    expect(scripts['start:prod']).toMatch(/^NODE_ENV=production APP_ENV=production node /);
    expect(readFileSync(join(ROOT, 'Dockerfile'), 'utf8')).toMatch(/^ENV NODE_ENV=production /m);
    // Jest runs with NODE_ENV=test: only startServer's own setting makes the server's production.
    const dir = tempDir('deployment-node-env');
    const server = await startServer({ DATA_DIR: dir.path });
    try {
      expect(readFileSync(`/proc/${server.child.pid}/environ`, 'utf8').split('\0')).toContain('NODE_ENV=production');
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
      dir.remove();
    }
  });
});

describe('.github/workflows/ci.yml', () => {
  const workflow = parse(readFileSync(join(ROOT, '.github/workflows/ci.yml'), 'utf8')) as {
    jobs: Record<string, { steps: { run?: string; env?: Record<string, string> }[] }>;
  };
  const steps = Object.values(workflow.jobs).map((job) => job.steps);
  const runs = (job: { run?: string }[]) => job.map((step) => step.run ?? '').join('\n');

  it('runs .ci/run, what every submission runs', () => {
    expect(steps.some((job) => /^bash \.ci\/run$/m.test(runs(job)))).toBe(true);
  });

  it('runs the production suites on the compose file\'s KurrentDB and MongoDB replica set', () => {
    const production = steps.find((job) => runs(job).includes('npm run test:production'))!;
    expect(runs(production)).toMatch(/docker compose up .*--wait.* kurrentdb mongo/);
    const env = production.find((step) => step.run === 'npm run test:production')!.env!;
    expect(env.KURRENTDB_URL).toBe('kurrentdb://localhost:2113?tls=false');
    expect(new URL(env.MONGODB_URL).searchParams.get('replicaSet')).toBe('rs0');
  });
});
