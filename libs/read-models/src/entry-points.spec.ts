/**
 * A helper of @im/read-models or @im/event-store must not load a database
 * driver: those load only through the adapters' own entry points.
 */
const DRIVERS = ['better-sqlite3', 'mongoose', '@kurrent/kurrentdb-client', 'pg'];

/** The drivers loaded while requiring `entry` in a fresh module registry. */
function driversLoadedBy(entry: string): string[] {
  const loaded: string[] = [];
  jest.isolateModules(() => {
    for (const driver of DRIVERS) {
      jest.doMock(driver, () => {
        loaded.push(driver);
        return jest.requireActual(driver);
      });
    }
    require(entry);
  });
  return loaded;
}

afterEach(() => DRIVERS.forEach((driver) => jest.dontMock(driver)));

describe('library entry points', () => {
  it.each(['@im/read-models', '@im/event-store'])('%s loads no database driver', (entry) => {
    expect(driversLoadedBy(entry)).toEqual([]);
  });

  it.each([
    ['@im/read-models/sqlite', 'better-sqlite3'],
    ['@im/read-models/mongodb', 'mongoose'],
    ['@im/read-models/postgres', 'pg'],
    ['@im/event-store/sqlite', 'better-sqlite3'],
    ['@im/event-store/kurrentdb', '@kurrent/kurrentdb-client'],
    ['@im/event-store/postgres', 'pg'],
  ])('%s loads its driver, %s, and no other', (entry, driver) => {
    expect(driversLoadedBy(entry)).toEqual([driver]);
  });
});
