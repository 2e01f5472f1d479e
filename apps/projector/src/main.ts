import { NestFactory } from '@nestjs/core';
import { loadConfig } from '@im/config';
import { exitOnStartupFailure, openStores } from '@im/persistence';
import { ProjectorModule } from './projector.module';
import { rebuildCommand } from './rebuild.command';
import { runCommand } from './run.command';

const COMMANDS: Record<string, typeof rebuildCommand> = { rebuild: rebuildCommand, run: runCommand };

async function main(): Promise<void> {
  const name = process.argv[2];
  const command = name === undefined ? undefined : COMMANDS[name];
  if (!command) {
    console.error(`Usage: projector <${Object.keys(COMMANDS).join('|')}>`);
    process.exit(2);
  }
  // The projector process always runs the projections itself, whatever the api's PROJECTOR says.
  const config = { ...loadConfig(), projector: 'embedded' as const };
  // A rebuild empties the read models: no api may serve the directory meanwhile (nor start during it).
  const stores = await openStores(config, { lock: name === 'rebuild' ? 'rebuild' : undefined });
  const app = await NestFactory.createApplicationContext(ProjectorModule.forRoot(config, stores, name === 'run'), {
    logger: ['error', 'warn', 'log'],
    abortOnError: false,
  });
  try {
    console.log(await command(app));
  } finally {
    await app.close();
  }
}

main().catch(exitOnStartupFailure);
