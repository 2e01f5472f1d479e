import { Controller, Get, Headers, Inject, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { resolve } from 'node:path';
import { APP_CONFIG, type AppConfig } from '@im/config';
import { Public } from '../auth/access.decorators';
import { consolePageCsp } from '../console/console-config';
import { CONSOLE_BUILD_DIR, loadConsoleFiles, sendConsoleIndex } from '../console/console-files';

/**
 * The GraphQL playground: a view of the web console (apps/console/src/views/playground.tsx),
 * so it comes from this origin under the console's CSP, with no CDN, and works offline.
 * Registered in development mode only.
 */
@Public()
@ApiExcludeController()
@Controller('graphql/playground')
export class PlaygroundController {
  private readonly files = loadConsoleFiles(resolve(process.cwd(), CONSOLE_BUILD_DIR));
  private readonly csp: string;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.csp = consolePageCsp(config);
  }

  @Get()
  page(@Headers('accept-encoding') acceptEncoding: string | undefined, @Res() reply: FastifyReply): void {
    sendConsoleIndex(reply, this.files, acceptEncoding, this.csp);
  }
}
