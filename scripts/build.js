'use strict';
/**
 * `npm run build`: the api, the projector and the console into dist/, and a
 * digest of the sources they were built from (dist/.build-inputs).
 *
 * With `--if-changed` (npm's prepare, `npm start`, `npm test`) it builds only
 * when that digest differs, so the install builds once and a start after it
 * takes seconds, and `.ci/run` (npm ci, then npm test) builds once, not twice.
 * Plain CommonJS without dependencies: it runs before anything is compiled.
 */
const { createHash } = require('node:crypto');
const { spawnSync } = require('node:child_process');
const { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const ROOT = join(__dirname, '..');
const DIGEST_FILE = join(ROOT, 'dist', '.build-inputs');
const APPS = ['api', 'projector'];
// Each app's bundle and, beside it, one bundle per worker of the embedded store's runtime (libs/sqlite-runtime/webpack.config.js).
const WORKERS_DIR = join(ROOT, 'libs', 'sqlite-runtime', 'src', 'workers');
const WORKERS = existsSync(WORKERS_DIR) ? readdirSync(WORKERS_DIR).filter((name) => name.endsWith('.worker.ts')) : [];
const OUTPUTS = [
  ...APPS.flatMap((app) => [`dist/apps/${app}/main.js`, ...WORKERS.map((name) => `dist/apps/${app}/workers/${name.replace(/\.ts$/, '.js')}`)]),
  'dist/console/index.html',
];
const INPUT_DIRS = ['apps', 'libs'];
// The lock file too: the console bundles its dependencies; package.json's version is built in.
const INPUT_FILES = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'nest-cli.json'];
// Tests are not part of the build (tsconfig.build.json leaves them out): editing one rebuilds nothing.
const NOT_BUILT = /\.(spec|contract)\.tsx?$/;

function inputsDigest() {
  const files = [...INPUT_FILES];
  for (const dir of INPUT_DIRS) {
    for (const name of readdirSync(join(ROOT, dir), { recursive: true })) {
      const path = join(dir, name);
      if (!NOT_BUILT.test(path) && statSync(join(ROOT, path)).isFile()) files.push(path);
    }
  }
  const hash = createHash('sha256');
  for (const path of files.sort()) hash.update(`${path}\0`).update(readFileSync(join(ROOT, path))).update('\0');
  return hash.digest('hex');
}

function upToDate(digest) {
  return OUTPUTS.every((path) => existsSync(join(ROOT, path))) && existsSync(DIGEST_FILE) && readFileSync(DIGEST_FILE, 'utf8').trim() === digest;
}

function run(script) {
  // Under npm (every caller is an npm script) npm_execpath is npm's own CLI.
  const npm = process.env.npm_execpath;
  const { status } = npm
    ? spawnSync(process.execPath, [npm, 'run', script], { cwd: ROOT, stdio: 'inherit' })
    : spawnSync('npm', ['run', script], { cwd: ROOT, stdio: 'inherit', shell: process.platform === 'win32' });
  return status ?? 1;
}

/** An install without devDependencies (npm ci --omit=dev) has no compiler: its prepare step builds nothing. */
function buildToolsMissing() {
  try {
    require.resolve('@nestjs/cli/package.json', { paths: [ROOT] });
    return false;
  } catch {
    return true;
  }
}

function main() {
  if (process.env.npm_lifecycle_event === 'prepare' && buildToolsMissing()) {
    console.log('build: the devDependencies are not installed (--omit=dev), so nothing is built');
    return 0;
  }
  const digest = inputsDigest();
  if (process.argv.includes('--if-changed') && upToDate(digest)) {
    console.log('build: dist/ is up to date with the sources, nothing to build (npm run build builds anyway)');
    return 0;
  }
  // A build that fails half-way must not look finished.
  rmSync(DIGEST_FILE, { force: true });
  for (const script of ['build:api', 'build:console']) {
    const status = run(script);
    if (status !== 0) return status;
  }
  writeFileSync(DIGEST_FILE, `${digest}\n`);
  return 0;
}

process.exitCode = main();
