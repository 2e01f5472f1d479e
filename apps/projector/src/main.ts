import { NestFactory } from '@nestjs/core';
import { ConfigError, loadConfig } from '@im/config';
import { ProjectorModule } from './projector.module';
import { RebuildRefused, rebuildCommand } from './rebuild.command';

const COMMANDS: Record<string, typeof rebuildCommand> = { rebuild: rebuildCommand };

async function main(): Promise<void> {
  const name = process.argv[2];
  const command = name === undefined ? undefined : COMMANDS[name];
  if (!command) {
    console.error(`Usage: projector <${Object.keys(COMMANDS).join('|')}>`);
    process.exit(2);
  }
  const app = await NestFactory.createApplicationContext(ProjectorModule.forRoot(loadConfig()), {
    logger: ['error', 'warn'],
  });
  try {
    console.log(await command(app));
  } finally {
    await app.close();
  }
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) console.error(`Configuration error: ${error.message}`);
  else if (error instanceof RebuildRefused) console.error(error.message);
  else console.error(error);
  process.exit(1);
});
