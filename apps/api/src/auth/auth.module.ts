import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { AuthGuard } from './auth.guard';
import { IntegrationKeyAuthenticator } from './integration-key.authenticator';
import { JwtStrategy } from './jwt.strategy';
import { RequestAuthenticator } from './request-authenticator';

@Module({
  imports: [PassportModule],
  providers: [JwtStrategy, IntegrationKeyAuthenticator, RequestAuthenticator, { provide: APP_GUARD, useClass: AuthGuard }],
  exports: [RequestAuthenticator],
})
export class AuthModule {}
