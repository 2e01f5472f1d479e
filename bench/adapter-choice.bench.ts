import { join } from 'node:path';
import { formatRow, listeningUrl, load, startTsServer, TABLE_HEAD } from './support/load';

async function startEcho(adapter: string) {
  const child = startTsServer(join(__dirname, 'adapter-choice.server.ts'), [adapter]);
  return { url: await listeningUrl(child), stop: () => child.kill('SIGTERM') };
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
