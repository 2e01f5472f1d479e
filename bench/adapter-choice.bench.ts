import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { formatRow, load, TABLE_HEAD } from './support/load';

async function startEcho(adapter: string) {
  const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', '-r', 'tsconfig-paths/register', join(__dirname, 'adapter-choice.server.ts'), adapter], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = out.match(/listening on (\S+),/);
      if (m) resolve(m[1].replace('[::1]', '127.0.0.1'));
    });
  });
  return { url, stop: () => child.kill('SIGTERM') };
}

/** Fastify or Express under NestJS: the same app, 32 connections, POST and GET. */
export async function adapterChoice(seconds: number): Promise<string> {
  const rows: string[] = [];
  for (const adapter of ['fastify', 'express']) {
    const server = await startEcho(adapter);
    try {
      const post = await load({
        url: `${server.url}/incidents`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'Checkout is down', severity: 'SEV-1' }),
        duration: seconds,
      });
      const get = await load({ url: `${server.url}/health`, duration: seconds });
      rows.push(formatRow(`${adapter}: POST validated JSON`, post), formatRow(`${adapter}: GET JSON`, get));
    } finally {
      server.stop();
    }
  }
  return [
    '## HTTP adapter: Fastify or Express',
    '',
    `The same minimal Nest app (class-validator DTO on a JSON POST, a JSON GET), no storage, ${seconds} s each at 32 connections (\`bench/adapter-choice.bench.ts\`).`,
    '',
    ...TABLE_HEAD,
    ...rows,
  ].join('\n');
}
