import { Body, Controller, Get, HttpCode, Inject, Post } from '@nestjs/common';
import { decode } from 'jsonwebtoken';
import { APP_CONFIG, type AppConfig } from '@im/config';
import { ForbiddenError } from '@im/incidents';
import { Public } from '../auth/access.decorators';
import { DevelopmentTokenRefusedError, mintDevelopmentToken } from '../auth/development-token';
import { ConsoleApiDocs } from './console.api-docs';
import { type ConsoleConfig, consoleConfig } from './console-config';
import { parseDevelopmentSignInBody } from './development-sign-in.body';

/** What the console asks before anyone has signed in: how to sign in, and (development only) a token. */
@Public()
@ConsoleApiDocs.controller
@Controller('api/v1/console')
export class ConsoleController {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  @Get('config')
  @ConsoleApiDocs.config
  settings(): ConsoleConfig {
    return consoleConfig(this.config);
  }

  @Post('development-token')
  @HttpCode(201)
  @ConsoleApiDocs.developmentToken
  developmentToken(@Body() body: unknown): { token: string; expires_at: string } {
    if (!consoleConfig(this.config).development_sign_in) {
      throw new ForbiddenError(
        'Signing in as any user is offered only in development mode with the built-in development secret (APP_ENV=development, neither JWT_SECRET nor JWT_JWKS_URL set): this service verifies tokens with a configured key, which is never used to mint tokens for whoever asks; sign in with your identity provider',
      );
    }
    try {
      const token = mintDevelopmentToken(this.config, parseDevelopmentSignInBody(body));
      const { exp } = decode(token) as { exp: number };
      return { token, expires_at: new Date(exp * 1000).toISOString() };
    } catch (error) {
      if (error instanceof DevelopmentTokenRefusedError) throw new ForbiddenError(error.message);
      throw error;
    }
  }
}
