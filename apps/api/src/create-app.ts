import type { LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance } from 'fastify';
import type { AppConfig } from '@im/config';
import { openStores } from '@im/persistence';
import { AppModule } from './app.module';
import { buildOpenApiDocument, OpenApiDocument } from './diagnostics/openapi.document';

/** Requests larger than this are refused with 413 before they are parsed. */
export const BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * JSON bodies for our media types only (anything else is 415); an empty body
 * reads as "no body" so bodiless POSTs work whatever headers a client sends.
 */
function registerJsonParser(fastify: FastifyInstance): void {
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser(
    ['application/json', 'application/cloudevents+json'],
    { parseAs: 'string' },
    (request, body, done) => {
      const text = body.toString();
      if (text.trim() === '') return done(null, undefined);
      parseJson(request, text, done);
    },
  );
}

export async function createApp(
  config: AppConfig,
  logger: LogLevel[] | false = ['error', 'warn', 'log'],
): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({ bodyLimit: BODY_LIMIT_BYTES, logger: false });
  registerJsonParser(adapter.getInstance());
  const stores = await openStores(config);
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config, stores), adapter, {
    logger,
    bodyParser: false,
    abortOnError: false,
  });
  app.enableShutdownHooks();
  app.get(OpenApiDocument).document = buildOpenApiDocument(app);
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  return app;
}
