import type { INestApplicationContext } from '@nestjs/common';
import { Logger } from '@nestjs/common';
import { PROJECTION_WORKER, type ProjectionWorker } from '@im/read-models';

/**
 * Runs the projection workers until SIGTERM/SIGINT: each resumes from its
 * checkpoint, so the process may be stopped or killed at any moment.
 */
export async function runCommand(app: INestApplicationContext): Promise<string> {
  const worker = app.get<ProjectionWorker | null>(PROJECTION_WORKER);
  if (!worker) throw new Error('the projector runs the projections itself: leave PROJECTOR unset or embedded for it');
  const logger = new Logger('Projector');
  logger.log(`Projecting from position ${worker.position}`);
  await new Promise<void>((resolve) => {
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });
  return `Stopped at position ${worker.position}`;
}
