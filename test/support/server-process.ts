import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
export const API_MAIN = join(ROOT, 'dist', 'apps', 'api', 'main.js');
export const PROJECTOR_MAIN = join(ROOT, 'dist', 'apps', 'projector', 'main.js');
/** The V8 flags the api and the projector run with (package.json's scripts, the Dockerfile, the compose file: test/deployment.spec.ts). */
export const NODE_FLAGS = ['--max-semi-space-size=64'];

/** What `npm run start:prod` and the image set: the libraries' production mode (docs/decisions.md, "NODE_ENV=production"). */
export const PRODUCTION_NODE_ENV = { NODE_ENV: 'production' };

function requireBuilt(file: string): void {
  if (!existsSync(file)) throw new Error(`${file} is missing: run "npm run build" first (npm test does)`);
}

const MAX_OUTPUT_CHARS = 4 * 1024 * 1024;

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  output: () => string;
  /** Resolves with the exit code or signal once the process has ended. */
  exited: Promise<number | NodeJS.Signals | null>;
}

/** Starts the built api as a user would (`npm run start:prod`: `NODE_ENV=production node <NODE_FLAGS> dist/apps/api/main.js`) and waits until it listens. */
export function startServer(env: Record<string, string>, timeoutMs = 20_000): Promise<ServerProcess> {
  requireBuilt(API_MAIN);
  const child = spawn(process.execPath, [...NODE_FLAGS, API_MAIN], {
    env: { ...process.env, ...PRODUCTION_NODE_ENV, PORT: '0', NO_COLOR: '1', APP_ENV: 'development', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) =>
    child.once('exit', (code, signal) => resolve(signal ?? code)),
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), timeoutMs);
    let listening = false;
    const onData = (chunk: Buffer) => {
      // The access log can run to megabytes under a benchmark: keep the first few, and stop searching once started.
      if (output.length < MAX_OUTPUT_CHARS) output += chunk.toString();
      if (listening) return;
      const match = output.match(/listening on (http:\/\/\S+),/);
      if (match) {
        listening = true;
        clearTimeout(timer);
        resolve({ url: match[1].replace('[::1]', '127.0.0.1'), child, output: () => output, exited });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((how) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${String(how)}) before listening:\n${output}`));
    });
  });
}

/** The projector as its own process (`npm run projector`: `node <NODE_FLAGS> dist/apps/projector/main.js run`), `ready` once it projects. */
export function startProjector(env: Record<string, string>) {
  requireBuilt(PROJECTOR_MAIN);
  const child = spawn(process.execPath, [...NODE_FLAGS, PROJECTOR_MAIN, 'run'], { env: { ...process.env, NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));
  let output = '';
  const ready = new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      if (output.length < MAX_OUTPUT_CHARS) output += chunk.toString();
      if (output.includes('Projecting from position')) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then(() => reject(new Error(`projector exited:\n${output}`)));
  });
  return { child, exited, ready, output: () => output };
}

/** Runs the built projector CLI to completion. */
export function runProjector(args: string[], env: Record<string, string>) {
  requireBuilt(PROJECTOR_MAIN);
  const result = spawnSync(process.execPath, [PROJECTOR_MAIN, ...args], {
    env: { ...process.env, NO_COLOR: '1', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}
