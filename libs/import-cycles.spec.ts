import madge from 'madge';
import { join } from 'node:path';

const ROOT = join(__dirname, '..');

/** Layers that import each other cannot be understood, or replaced, one at a time. */
describe('imports', () => {
  it('form no cycle across apps and libs', async () => {
    const graph = await madge([join(ROOT, 'apps'), join(ROOT, 'libs')], {
      baseDir: ROOT,
      fileExtensions: ['ts'],
      tsConfig: join(ROOT, 'tsconfig.json'),
      excludeRegExp: [/\.spec\.ts$/],
    });
    expect(graph.circular()).toEqual([]);
    // The graph must really have been walked: the api imports the domain through the path alias.
    expect(Object.keys(graph.obj()).length).toBeGreaterThan(100);
  }, 60_000);
});
