/**
 * The same minimal Nest app (one validated JSON POST, one GET) on either
 * HTTP adapter, to measure what the adapter itself costs.
 */
import { Body, Controller, Get, Module, Post, ValidationPipe } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { ExpressAdapter } from '@nestjs/platform-express';
import { IsIn, IsString } from 'class-validator';

class CreateDto {
  @IsString() title!: string;
  @IsIn(['SEV-1', 'SEV-2', 'SEV-3', 'SEV-4']) severity!: string;
}

@Controller()
class EchoController {
  @Post('incidents')
  create(@Body() body: CreateDto) {
    return { id: 'INC-00000000', ...body, status: 'open', created_at: new Date().toISOString() };
  }

  @Get('health')
  health() {
    return { status: 'healthy', timestamp: new Date().toISOString() };
  }
}

@Module({ controllers: [EchoController] })
class EchoModule {}

async function main() {
  const adapter = process.argv[2] === 'express' ? new ExpressAdapter() : new FastifyAdapter();
  const app = await NestFactory.create(EchoModule, adapter, { logger: false });
  app.useGlobalPipes(new ValidationPipe({ whitelist: true }));
  await app.listen(0, '127.0.0.1');
  console.log(`listening on ${await app.getUrl()},`);
}

void main();
