import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { AuthGuard } from './auth.guard';
import { JwtStrategy } from './jwt.strategy';
import { RequestAuthenticator } from './request-authenticator';

@Module({
  imports: [PassportModule],
  providers: [JwtStrategy, RequestAuthenticator, { provide: APP_GUARD, useClass: AuthGuard }],
  exports: [RequestAuthenticator],
})
export class AuthModule {}
