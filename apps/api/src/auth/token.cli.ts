/**
 * `npm run token -- --sub alice --roles timeline.writer,timeline.reader --clearance internal`
 * prints a development token signed with JWT_SECRET (or the development secret).
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '@im/config';
import { mintDevelopmentToken } from './development-token';

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
  const claims = {
    sub: values.sub as string,
    roles: list(values.roles),
    clearance: values.clearance ?? 'public',
    data_access: list(values['data-access']),
  };
  process.stdout.write(`${mintDevelopmentToken(loadConfig(), claims, values['expires-in'] as `${number}h`)}\n`);
}

try {
  main();
} catch (error) {
  console.error(`token: ${(error as Error).message}`);
  console.error('usage: npm run token -- --sub <user> [--roles a,b] [--clearance public|internal|restricted|confidential] [--data-access pii,phi,legal_hold] [--expires-in 12h]');
  process.exit(2);
}
