import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { tempDir } from './support/temp-dir';

/**
 * scripts/build.js: the install builds (npm's prepare), and `npm start` and
 * `npm test` build again only when a source changed. Run on a small copy of
 * the repository's layout, with a stand-in for npm that records which build
 * scripts ran and writes their outputs.
 */
const ROOT = join(__dirname, '..');
const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;

const FAKE_NPM = `
const { appendFileSync, mkdirSync, writeFileSync } = require('node:fs');
const script = process.argv[3];
appendFileSync('npm-runs.log', script + '\\n');
if (process.env.FAIL_BUILD === script) process.exit(2);
const apps = ['api', 'projector'].flatMap((app) => ['dist/apps/' + app + '/main.js', 'dist/apps/' + app + '/workers/reads.worker.js']);
const outputs = { 'build:api': apps, 'build:console': ['dist/console/index.html'] }[script];
for (const path of outputs) {
  mkdirSync(require('node:path').dirname(path), { recursive: true });
  writeFileSync(path, 'built');
}
`;

describe('scripts/build.js', () => {
  const dir = tempDir('build-script');
  const root = join(dir.path, 'repo');
  const fakeNpm = join(dir.path, 'fake-npm.js');
  afterAll(() => dir.remove());

  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  beforeAll(() => {
    writeFileSync(fakeNpm, FAKE_NPM);
    write('scripts/build.js', '');
    copyFileSync(join(ROOT, 'scripts/build.js'), join(root, 'scripts/build.js'));
    for (const file of ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'nest-cli.json']) write(file, '{}');
    write('apps/api/src/main.ts', 'export {};');
    write('apps/api/src/main.spec.ts', 'test();');
    write('libs/incidents/src/index.ts', 'export const a = 1;');
    write('libs/sqlite-runtime/src/workers/reads.worker.ts', 'export {};');
  });

  /** Runs the script as npm would (npm_execpath: the stand-in); answers what it printed and which build scripts ran. */
  const build = (args: string[], env: Record<string, string> = {}) => {
    const log = join(root, 'npm-runs.log');
    writeFileSync(log, '');
    const run = spawnSync(process.execPath, ['scripts/build.js', ...args], { cwd: root, encoding: 'utf8', env: { ...process.env, npm_execpath: fakeNpm, ...env } });
    return { status: run.status, out: run.stdout, ran: readFileSync(log, 'utf8').split('\n').filter(Boolean) };
  };

  it('builds the first time, then skips while the sources are those it built from; npm run build always builds', () => {
    expect(build(['--if-changed'])).toMatchObject({ status: 0, ran: ['build:api', 'build:console'] });
    expect(existsSync(join(root, 'dist/.build-inputs'))).toBe(true);
    expect(build(['--if-changed'])).toEqual({ status: 0, out: expect.stringContaining('up to date'), ran: [] });
    expect(build([])).toMatchObject({ status: 0, ran: ['build:api', 'build:console'] });
  });

  it('builds again when a source changes, not when a test does', () => {
    write('apps/api/src/main.spec.ts', 'test("changed");');
    expect(build(['--if-changed']).ran).toEqual([]);
    write('libs/incidents/src/index.ts', 'export const a = 2;');
    expect(build(['--if-changed']).ran).toEqual(['build:api', 'build:console']);
    expect(build(['--if-changed']).ran).toEqual([]);
  });

  it("builds again when a worker's bundle is missing from dist", () => {
    expect(build(['--if-changed']).ran).toEqual([]);
    rmSync(join(root, 'dist/apps/api/workers/reads.worker.js'));
    expect(build(['--if-changed']).ran).toEqual(['build:api', 'build:console']);
    expect(existsSync(join(root, 'dist/apps/api/workers/reads.worker.js'))).toBe(true);
  });

  it('does not take a build that failed half-way for a finished one', () => {
    write('libs/incidents/src/index.ts', 'export const a = 3;');
    expect(build(['--if-changed'], { FAIL_BUILD: 'build:console' })).toMatchObject({ status: 2, ran: ['build:api', 'build:console'] });
    expect(build(['--if-changed']).ran).toEqual(['build:api', 'build:console']);
  });

  it('builds nothing as the prepare step of an install without devDependencies (no compiler to build with)', () => {
    write('libs/incidents/src/index.ts', 'export const a = 4;');
    expect(build(['--if-changed'], { npm_lifecycle_event: 'prepare' })).toEqual({ status: 0, out: expect.stringContaining('not installed'), ran: [] });
  });
});

describe("package.json's scripts", () => {
  it('build at install (prepare), and start and test build only when a source changed', () => {
    expect(scripts.prepare).toContain("require('./scripts/build.js')");
    expect(scripts.prepare).toContain('--if-changed');
    expect(scripts.start).toMatch(/^node scripts\/build\.js --if-changed && node /);
    expect(scripts.test).toBe('node scripts/build.js --if-changed && jest');
    expect(scripts.build).toBe('node scripts/build.js');
  });
});
