import { Controller, Get, Headers, Inject, Param, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { resolve } from 'node:path';
import { APP_CONFIG, type AppConfig } from '@im/config';
import { Public } from '../auth/access.decorators';
import { CONSOLE_BUILD_DIR, loadConsoleFiles, sendConsoleAsset, sendConsoleIndex } from './console-files';
import { consolePageCsp } from './console-config';

/**
 * The console's own paths: each answers index.html, and the app shows the view
 * (a reload or a shared link opens the same page). Everything else keeps its
 * route (/api, /health, /graphql), or its 404.
 */
const CONSOLE_PATHS = ['/', 'mine', 'declare', 'settings', 'incidents/:id', 'signin/callback', 'oncall', 'oncall/services', 'oncall/policies', 'oncall/schedules/:id', 'insights'];

/** The web console, built by `npm run build` into dist/console, served from this origin. */
@Public()
@ApiExcludeController()
@Controller()
export class ConsolePageController {
  private readonly files = loadConsoleFiles(resolve(process.cwd(), CONSOLE_BUILD_DIR));
  private readonly csp: string;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.csp = consolePageCsp(config);
  }

  @Get(CONSOLE_PATHS)
  page(@Headers('accept-encoding') acceptEncoding: string | undefined, @Res() reply: FastifyReply): void {
    sendConsoleIndex(reply, this.files, acceptEncoding, this.csp);
  }

  @Get('assets/:file')
  asset(@Param('file') file: string, @Headers('accept-encoding') acceptEncoding: string | undefined, @Res() reply: FastifyReply): void {
    sendConsoleAsset(reply, this.files, file, acceptEncoding, this.csp);
  }
}
