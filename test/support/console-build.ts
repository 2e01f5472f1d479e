import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** The console's build output, served by the api; `npm test` builds it first (npm run build). */
export function requireConsoleBuild(): void {
  if (!existsSync(join(__dirname, '../../dist/console/index.html'))) {
    throw new Error('The console is not built: run npm run build (or npm run build:console) before this test');
  }
}
