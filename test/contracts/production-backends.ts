/**
 * The production servers cannot run on every machine: their contract runs need
 * KURRENTDB_URL / MONGODB_URL (docker compose up kurrentdb mongo starts both).
 * Without them the run is skipped, and says so.
 */
export function productionBackend(variable: 'KURRENTDB_URL' | 'MONGODB_URL'): string | undefined {
  const url = process.env[variable];
  if (!url) console.info(`${variable} is not set: its contract suite is skipped (docker compose up kurrentdb mongo, then set it)`);
  return url;
}
