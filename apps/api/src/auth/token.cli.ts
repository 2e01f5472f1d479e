/**
 * `npm run token -- --sub alice --roles timeline.writer,timeline.reader --clearance internal`
 * prints a development token signed with JWT_SECRET (or the development secret).
 */
import { sign } from 'jsonwebtoken';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '@im/config';
import { principalFromClaims } from './principal';

const list = (value: string | undefined) => (value ? value.split(',').map((v) => v.trim()).filter(Boolean) : []);

function main(): void {
  const { values } = parseArgs({
    options: {
      sub: { type: 'string' },
      roles: { type: 'string' },
      clearance: { type: 'string' },
      'data-access': { type: 'string' },
      'expires-in': { type: 'string', default: '12h' },
    },
  });
  const config = loadConfig();
  if (config.jwt.kind !== 'secret') throw new ConfigError('tokens are signed here only with JWT_SECRET; JWT_JWKS_URL is set');
  const claims = {
    sub: values.sub,
    roles: list(values.roles),
    clearance: values.clearance ?? 'public',
    data_access: list(values['data-access']),
  };
  principalFromClaims(claims);
  process.stdout.write(
    `${sign(claims, config.jwt.secret, {
      algorithm: 'HS256',
      expiresIn: values['expires-in'] as `${number}h`,
      ...(config.jwt.issuer ? { issuer: config.jwt.issuer } : {}),
      ...(config.jwt.audience ? { audience: config.jwt.audience } : {}),
    })}\n`,
  );
}

try {
  main();
} catch (error) {
  console.error(`token: ${(error as Error).message}`);
  console.error('usage: npm run token -- --sub <user> [--roles a,b] [--clearance public|internal|restricted|confidential] [--data-access pii,phi,legal_hold] [--expires-in 12h]');
  process.exit(2);
}
