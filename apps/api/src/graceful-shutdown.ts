import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyBaseLogger } from 'fastify';

/**
 * SIGTERM/SIGINT: stop accepting connections, let in-flight requests finish
 * (new requests on open keep-alive connections get 503), then close the app:
 * projections catch up with the log and stop, the stores close. Connections
 * still busy after `graceMs` are cut so a slow client cannot hold the exit.
 * Nest's own shutdown hooks would stop the projections and close the stores
 * before the HTTP server, failing the very requests being drained.
 */
export function closeOnSignals(app: NestFastifyApplication, graceMs: number, logger: FastifyBaseLogger): void {
  let closing: Promise<void> | undefined;
  const close = (signal: NodeJS.Signals) => {
    if (closing) return;
    logger.info(`${signal}: draining in-flight requests, then closing the stores`);
    closing = drainAndClose(app, graceMs).then(
      () => {
        logger.info('Shut down cleanly');
        process.exit(0);
      },
      (error: unknown) => {
        logger.error(`Shutdown failed: ${String(error)}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', close);
  process.on('SIGINT', close);
}

async function drainAndClose(app: NestFastifyApplication, graceMs: number): Promise<void> {
  const server = app.getHttpServer() as import('node:http').Server;
  const cut = setTimeout(() => server.closeAllConnections(), graceMs);
  try {
    await app.getHttpAdapter().getInstance().close();
  } finally {
    clearTimeout(cut);
  }
  await app.close();
}
