import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { type FastifyInstance, LogController } from 'fastify';
import { createServer, type RequestListener } from 'node:http';
import type { AppConfig } from '@im/config';
import { closeStores, openStores } from '@im/persistence';
import { AppModule } from './app.module';
import { buildOpenApiDocument, OpenApiDocument } from './diagnostics/openapi.document';
import { enableCors, registerLingeringClose, registerRequestLogging, registerSecurityHeaders } from './http/http-hardening';
import { clientErrorHandler } from './http/client-error.handler';
import { BODY_LIMIT_BYTES, registerJsonParser } from './http/json-body.parser';
import { accessLogger, createJsonLogger, NestJsonLogger, requestIdOf } from './http/json-logger';

/** How often node checks connections against the request and header timeouts. */
const TIMEOUT_CHECK_MS = 1000;

/**
 * The api as a Nest application on Fastify, not yet listening. Slow clients are
 * cut off: headers within HEADERS_TIMEOUT_MS, the whole request within
 * REQUEST_TIMEOUT_MS (408), and a connection idle for twice that is closed.
 * Shutting down is the caller's job (main.ts drains first, see
 * graceful-shutdown.ts). `takesAppends` opens the stores as the served api
 * needs them (main.ts: the ledger-chain worker, see openStores); the
 * in-process apps of the tests leave it off.
 */
export async function createApp(config: AppConfig, { takesAppends = false }: { takesAppends?: boolean } = {}): Promise<NestFastifyApplication> {
  const logger = createJsonLogger(config.logLevel);
  const { requestTimeoutMs, headersTimeoutMs } = config.http;
  const adapter = new FastifyAdapter({
    bodyLimit: BODY_LIMIT_BYTES,
    loggerInstance: logger,
    // Fastify's two lines per request are replaced by one access line (http/http-hardening.ts).
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'request_id' }),
    genReqId: requestIdOf,
    clientErrorHandler,
    requestTimeout: requestTimeoutMs,
    connectionTimeout: 2 * requestTimeoutMs,
    serverFactory: (handler: RequestListener) =>
      createServer(
        { connectionsCheckingInterval: TIMEOUT_CHECK_MS, headersTimeout: Math.min(headersTimeoutMs, requestTimeoutMs), requestTimeout: requestTimeoutMs },
        handler,
      ),
  });
  const fastify = adapter.getInstance();
  registerJsonParser(fastify);
  registerSecurityHeaders(fastify);
  registerLingeringClose(fastify);
  registerRequestLogging(fastify, accessLogger(logger));
  // The lock first: a second server on the same DATA_DIR refuses before it touches a file.
  const stores = await openStores(config, { lock: 'api', takesAppends });
  try {
    const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config, stores), adapter, {
      logger: new NestJsonLogger(logger),
      bodyParser: false,
      abortOnError: false,
    });
    enableCors(app, config);
    app.get(OpenApiDocument).document = buildOpenApiDocument(app, config);
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
    return app;
  } catch (error) {
    // A start that fails (a bad LEDGER_SIGNING_KEY, say) leaves nothing open behind it.
    await closeStores(stores);
    throw error;
  }
}
