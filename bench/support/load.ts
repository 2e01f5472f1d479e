import autocannon from 'autocannon';
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { PRODUCTION_NODE_ENV } from '../../test/support/server-process';

export interface LoadResult {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  seconds: number;
}

export type LoadOptions = autocannon.Options;

/** Drives a server with autocannon and reduces the result to the figures the report uses. */
export async function load(options: LoadOptions): Promise<LoadResult> {
  const result = await autocannon({ connections: 32, duration: 20, ...options });
  return {
    requests: result.requests.total,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    seconds: result.duration,
  };
}

/** The p-th percentile of ascending `sorted` values (nearest rank); NaN when there are none. */
export const percentile = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : NaN);

export const formatRow = (name: string, r: LoadResult) =>
  `| ${name} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.requests} | ${r.errors} | ${r.non2xx} |`;

export const TABLE_HEAD = [
  '| workload | req/s | p50 ms | p99 ms | requests | errors | non-2xx |',
  '|---|---|---|---|---|---|---|',
];

/** Runs a TypeScript server file of bench/ in its own process, in the libraries' production mode as the api runs. */
export const startTsServer = (file: string, args: string[] = []) =>
  spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', '-r', 'tsconfig-paths/register', file, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...PRODUCTION_NODE_ENV },
  });

/** Resolves with the URL a server prints as "listening on <url>,". */
export const listeningUrl = (child: ChildProcess) =>
  new Promise<string>((resolve) => {
    let out = '';
    const onData = (c: Buffer) => {
      out += c.toString();
      const m = out.match(/listening on (\S+),/);
      if (!m) return;
      // Keep draining the pipe, but stop collecting: a server's access log would grow without end.
      child.stdout!.off('data', onData).resume();
      resolve(m[1].replace('[::1]', '127.0.0.1'));
    };
    child.stdout!.on('data', onData);
  });

/** Runs `work` against the built api on a fresh data directory (seeded by `seed` first), then stops it and removes the directory. */
export async function withBuiltServer<T>(
  name: string,
  env: Record<string, string>,
  work: (url: string, dataDir: string, pid: number) => Promise<T>,
  seed?: (dataDir: string) => Promise<unknown>,
): Promise<T> {
  const { startServer } = await import('../../test/support/server-process');
  const { tempDir } = await import('../../test/support/temp-dir');
  const dir = tempDir(name);
  await seed?.(dir.path);
  // BENCH_CPU_PROF_DIR=<dir>: the server writes a CPU profile there (read it with `npm run bench:profile -- <file>`).
  const profile: Record<string, string> = process.env.BENCH_CPU_PROF_DIR ? { NODE_OPTIONS: `--require ${join(__dirname, 'cpu-profile.preload.js')}` } : {};
  const server = await startServer({ DATA_DIR: dir.path, ...profile, ...env }, 60_000);
  try {
    return await work(server.url, dir.path, server.child.pid!);
  } finally {
    server.child.kill('SIGTERM');
    await server.exited;
    dir.remove();
  }
}
