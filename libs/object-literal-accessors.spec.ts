import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

const ROOT = join(__dirname, '..');
const SERVER_CODE = ['apps/api', 'apps/projector', 'libs'];

/** `file:line` of every getter or setter written in an object literal. */
function literalAccessors(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if ((ts.isGetAccessorDeclaration(node) || ts.isSetAccessorDeclaration(node)) && ts.isObjectLiteralExpression(node.parent)) {
      found.push(`${fileName}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const sources = (dir: string): string[] =>
  readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.ts') && !path.endsWith('.spec.ts'))
    .map((path) => join(dir, path));

/**
 * V8 allocates an object literal's accessor pair in the old generation, so
 * whatever its getter's closure holds survives every young collection until
 * a full one. A timeline page written that way kept all the rows it read
 * alive and cost limit-1000 pages two thirds of their speed
 * (docs/benchmarks.md, 2026-11-28). A getter belongs on a class.
 */
describe('server code', () => {
  it('writes no getter or setter in an object literal', () => {
    const files = SERVER_CODE.flatMap(sources);
    expect(files.length).toBeGreaterThan(200);
    expect(files.flatMap((file) => literalAccessors(file, readFileSync(join(ROOT, file), 'utf8')))).toEqual([]);
  });

  it('finds one where there is one, and not on a class', () => {
    const text = 'class Page { get next() { return 1; } }\nconst page = { rows: [], get next() { return 1; } };\n';
    expect(literalAccessors('example.ts', text)).toEqual(['example.ts:2']);
  });
});
