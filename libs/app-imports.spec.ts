import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, normalize, relative, sep } from 'node:path';

const ROOT = join(__dirname, '..');

/** Every module a file names: static and dynamic imports, re-exports, require and jest.mock. */
const SPECIFIER = /(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*|\bjest\.mock\s*\(\s*)(['"])([^'"]+)\1/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path);
    return /\.(ts|tsx|mts|cts)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The app a repository path lies in (`apps/<app>/…`), if any. */
const appOf = (path: string): string | undefined => {
  const [top, app] = path.split(sep);
  return top === 'apps' ? app : undefined;
};

/**
 * `<file> -> <module>` for each import that crosses from one app into another, or from a library
 * into an app, whether spelt relatively or from the root (tsconfig's baseUrl makes `apps/…` resolve).
 */
function crossings(root: string): string[] {
  const found: string[] = [];
  for (const dir of ['apps', 'libs']) {
    // This file spells crossings out as its example's text.
    for (const file of sourceFiles(join(root, dir)).filter((path) => path !== __filename)) {
      const from = relative(root, file);
      for (const [, , specifier] of readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
        const target = specifier.startsWith('.') ? relative(root, join(dirname(file), specifier)) : normalize(specifier);
        const into = appOf(target);
        if (into !== undefined && into !== appOf(from)) found.push(`${from} -> ${specifier}`);
      }
    }
  }
  return found;
}

/**
 * An app holds its edge and its wiring; what two programs share is a library. An app that reaches
 * into another, or a library into an app, ties their builds and their changes together again.
 */
describe('imports between apps', () => {
  it('no app imports another, and no library imports an app', () => {
    expect(crossings(ROOT)).toEqual([]);
    // The files must really have been read: the api alone has hundreds.
    expect(sourceFiles(join(ROOT, 'apps')).length).toBeGreaterThan(100);
  });

  it('are found, relative or from the root, in apps and in libraries', () => {
    const root = mkdtempSync(join(tmpdir(), 'app-imports-'));
    const write = (path: string, text: string) => {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    };
    try {
      write('apps/api/src/policy/policy.module.ts', 'export class PolicyModule {}\n');
      write('apps/api/src/main.ts', "import { PolicyModule } from './policy/policy.module';\n");
      write('apps/projector/src/projector.module.ts', "import { PolicyModule } from '../../api/src/policy/policy.module';\n");
      write('apps/projector/src/run.command.ts', "const loaded = import('apps/api/src/main');\n");
      write('libs/outbound/src/channel.ts', "export { PolicyModule } from '../../../apps/api/src/policy/policy.module';\n");
      write('libs/outbound/src/index.ts', "export * from './channel';\n");
      expect(crossings(root).sort()).toEqual([
        `${join('apps', 'projector', 'src', 'projector.module.ts')} -> ../../api/src/policy/policy.module`,
        `${join('apps', 'projector', 'src', 'run.command.ts')} -> apps/api/src/main`,
        `${join('libs', 'outbound', 'src', 'channel.ts')} -> ../../../apps/api/src/policy/policy.module`,
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
