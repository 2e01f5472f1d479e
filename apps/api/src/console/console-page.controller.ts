import { Controller, Get, Headers, Inject, NotFoundException, Param, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { resolve } from 'node:path';
import { APP_CONFIG, type AppConfig } from '@im/config';
import { Public } from '../auth/access.decorators';
import { chooseEncoding, CONSOLE_BUILD_DIR, type ConsoleFile, consoleCsp, loadConsoleFiles } from './console-files';
import { consoleConfig } from './console-config';

/**
 * The console's own paths: each answers index.html, and the app shows the view
 * (a reload or a shared link opens the same page). Everything else keeps its
 * route (/api, /health, /graphql), or its 404.
 */
const CONSOLE_PATHS = ['/', 'declare', 'settings', 'incidents/:id', 'signin/callback'];

/** The web console, built by `npm run build` into dist/console, served from this origin. */
@Public()
@ApiExcludeController()
@Controller()
export class ConsolePageController {
  private readonly files = loadConsoleFiles(resolve(process.cwd(), CONSOLE_BUILD_DIR));
  private readonly csp: string;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.csp = consoleCsp(consoleConfig(config).oidc?.issuer ?? null);
  }

  @Get(CONSOLE_PATHS)
  page(@Headers('accept-encoding') acceptEncoding: string | undefined, @Res() reply: FastifyReply): void {
    const index = this.files.get('/index.html');
    if (!index) throw new NotFoundException(`The console is not built: run npm run build (it writes ${CONSOLE_BUILD_DIR})`);
    // index.html names the hashed assets of this build, so it is always asked again.
    this.send(reply, index, acceptEncoding, 'no-cache');
  }

  @Get('assets/:file')
  asset(@Param('file') file: string, @Headers('accept-encoding') acceptEncoding: string | undefined, @Res() reply: FastifyReply): void {
    const found = this.files.get(`/assets/${file}`);
    if (!found) throw new NotFoundException(`No console asset ${file}`);
    // Asset names carry a hash of their content.
    this.send(reply, found, acceptEncoding, 'public, max-age=31536000, immutable');
  }

  private send(reply: FastifyReply, file: ConsoleFile, acceptEncoding: string | undefined, cacheControl: string): void {
    const { body, encoding } = chooseEncoding(file, acceptEncoding);
    void reply.header('content-type', file.type).header('cache-control', cacheControl).header('content-security-policy', this.csp).header('vary', 'accept-encoding');
    if (encoding) void reply.header('content-encoding', encoding);
    void reply.send(body);
  }
}
