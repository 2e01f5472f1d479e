'use strict';
/**
 * Nest's webpack build of an app (nest-cli.json's webpackConfigPath): the
 * app's bundle as Nest makes it, and beside it one bundle per worker of the
 * embedded store's runtime (src/workers/<name>.worker.ts
 * as dist/apps/<app>/workers/<name>.worker.js), which
 * src/worker-thread.ts starts.
 */
const { readdirSync } = require('node:fs');
const { dirname, join } = require('node:path');

const WORKERS = join(__dirname, 'src', 'workers');

module.exports = (options) => {
  // Nest names the bundle apps/<app>/main.js (under dist/).
  const app = dirname(options.output.filename);
  const workers = readdirSync(WORKERS)
    .filter((name) => name.endsWith('.worker.ts'))
    .map((name) => [join(app, 'workers', name.replace(/\.ts$/, '')), join(WORKERS, name)]);
  return {
    ...options,
    entry: { [join(app, 'main')]: options.entry, ...Object.fromEntries(workers) },
    output: { ...options.output, filename: '[name].js' },
  };
};
