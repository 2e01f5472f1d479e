import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { startTestApp, type TestApp } from './support/app';
import { tempDir } from './support/temp-dir';
import { ALL_TIMELINE_ROLES, bearer, token } from './support/tokens';

/**
 * The document is checked with the tools real clients use: openapi-typescript
 * and openapi-fetch under `tsc --strict`, Redocly's recommended rules, and the
 * running server answering the generated client's calls. A route, parameter,
 * body or answer that drifts from the document fails here.
 */

const run = promisify(execFile);
const ROOT = join(__dirname, '..');
const SECRET = 's'.repeat(40);
const TOKEN = token({ sub: 'typed-client', roles: [...ALL_TIMELINE_ROLES, 'integrations.admin', 'webhooks.admin', 'oncall.admin'] }, {}, SECRET);
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

type Operation = {
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string; schema?: Record<string, unknown> }[];
  responses: Record<string, { content?: Record<string, unknown>; headers?: Record<string, unknown> }>;
  deprecated?: boolean;
};
type Document = { paths: Record<string, Partial<Record<(typeof METHODS)[number], Operation>>> };

/** What the typed client answers per path and method. */
type Answer = { responses: Response[]; read?: unknown };
type Calls = Record<string, Record<string, () => Promise<Answer>>>;
/**
 * Loaded at run time: its types exist only once generated, so the project's
 * tsc neither includes nor follows it (tsconfig.json excludes it).
 */
const typedClient = (baseUrl: string, jwt: string): Calls =>
  (require(join(__dirname, 'openapi', 'typed-client')) as { typedClient: (url: string, jwt: string) => Calls }).typedClient(baseUrl, jwt);

const operationsOf = (doc: Document) =>
  Object.entries(doc.paths).flatMap(([path, item]) => METHODS.filter((m) => item[m]).map((method) => ({ path, method, operation: item[method]! })));

/**
 * Redocly's recommended rules, all on. Problems accepted where the rule's
 * assumption does not hold, each for its reason:
 */
const ACCEPTED_LINT_PROBLEMS: { ruleId: string; at: RegExp; why: string }[] = [
  { ruleId: 'operation-4xx-response', at: /^#\/paths\/~1health\/get\//, why: 'a liveness probe answers 200 or not at all' },
  { ruleId: 'operation-4xx-response', at: /^#\/paths\/~1api~1v1~1notifications~1vapid-public-key\/get\//, why: 'a public key, asked for without a token or parameter, answers 200 or not at all' },
  { ruleId: 'operation-4xx-response', at: /^#\/paths\/~1api~1v1~1ledger~1keys\/get\//, why: 'a public key set without parameters answers 200 or not at all' },
  {
    ruleId: 'operation-2xx-response',
    at: /^#\/paths\/~1api~1v1~1(realtime|correlation|sla|metrics|connectors)/,
    why: 'the seed contract lists these as unimplemented: they answer 404 by contract, declared deprecated',
  },
  { ruleId: 'operation-4xx-response', at: /^#\/paths\/~1api~1v1~1console~1config\/get\//, why: "the console's public sign-in configuration answers 200 or not at all" },
  { ruleId: 'no-unused-components', at: /^#\/components\/schemas\/Config$/, why: 'published for clients of GET /api/v1/schema?type=config, which no operation references by $ref' },
];

/** `tsc --strict` over the typed client, with `generated-openapi` resolved to the generated types. */
function compileTypedClient(generatedTypes: string): string[] {
  const program = ts.createProgram([join(__dirname, 'openapi/typed-client.ts')], {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    types: ['node'],
    paths: { 'generated-openapi': [generatedTypes] },
  });
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

describe.each(['development', 'production'] as const)('the OpenAPI document in %s mode', (mode) => {
  let t: TestApp;
  let baseUrl: string;
  let doc: Document;
  const dir = tempDir('openapi');
  const docFile = join(dir.path, 'openapi.json');

  beforeAll(async () => {
    t = await startTestApp({ APP_ENV: mode, JWT_SECRET: SECRET });
    // Listening through Nest, so closing the app closes the listener too.
    await t.app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(t.app.getHttpServer().address() as { port: number }).port}`;
    doc = (await t.http().get('/api/v1/openapi.json').set(bearer(TOKEN)).expect(200)).body;
    writeFileSync(docFile, JSON.stringify(doc));
    // A second incident, so the typed client's list (limit 1) gets a Link to the next page.
    await t.http().post('/api/v1/incidents').set(bearer(TOKEN)).send({ title: 'Earlier', severity: 'SEV-4' }).expect(201);
  });
  afterAll(async () => {
    await t.close();
    dir.remove();
  });

  it('generates types (openapi-typescript) that an openapi-fetch client of every operation compiles against under tsc --strict', async () => {
    const types = join(dir.path, 'openapi.d.ts');
    await run(process.execPath, [join(ROOT, 'node_modules/openapi-typescript/bin/cli.js'), docFile, '-o', types], { timeout: 60_000 });
    expect(compileTypedClient(types)).toEqual([]);
  }, 120_000);

  it('passes Redocly lint (recommended rules)', async () => {
    const { stdout } = await run(process.execPath, [join(__dirname, 'openapi/redocly-lint.mjs'), docFile, JSON.stringify({})], { cwd: ROOT, timeout: 60_000 });
    const problems = (JSON.parse(stdout) as { ruleId: string; pointer: string; message: string }[]).filter(
      (p) => !ACCEPTED_LINT_PROBLEMS.some((accepted) => accepted.ruleId === p.ruleId && accepted.at.test(p.pointer)),
    );
    expect(problems).toEqual([]);
  }, 120_000);

  it('declares every status, media type and Location/Link header the server gives the typed client', async () => {
    const undeclared: string[] = [];
    const declared = new Map(operationsOf(doc).map(({ path, method, operation }) => [`${method} ${path}`, operation]));
    // In the client's order: declare, then read, append, export, move through the lifecycle.
    for (const [path, methods] of Object.entries(typedClient(baseUrl, TOKEN))) {
      for (const [method, call] of Object.entries(methods)) {
        const operation = declared.get(`${method} ${path}`);
        for (const response of (await call()).responses) {
          const where = `${method.toUpperCase()} ${path} ${response.status}`;
          // Each call sends a valid request: only the unimplemented (deprecated) paths fail.
          expect([where, response.ok || operation?.deprecated]).toEqual([where, true]);
          const answer = operation?.responses[String(response.status)];
          if (!answer) {
            undeclared.push(`${where}: status`);
            continue;
          }
          const media = response.headers.get('content-type')?.split(';')[0];
          if (media && response.headers.get('content-length') !== '0' && !(media in (answer.content ?? {}))) undeclared.push(`${where}: ${media}`);
          const headers = Object.keys(answer.headers ?? {}).map((name) => name.toLowerCase());
          for (const header of ['location', 'link']) {
            if (response.headers.has(header) && !headers.includes(header)) undeclared.push(`${where}: ${header} header`);
          }
        }
      }
    }
    expect(undeclared).toEqual([]);
  }, 60_000);

  it('declares the bearer token optional exactly where the server serves a caller without one', async () => {
    const mismatches: string[] = [];
    for (const { path, method, operation } of operationsOf(doc)) {
      const url = path.replace(/\{[^}]+\}/g, 'INC-00000000');
      // fetch, which answers at the headers: a live stream served to the caller never ends.
      const response = await fetch(`${baseUrl}${url}`, { method: method.toUpperCase() });
      await response.body?.cancel();
      const { status } = response;
      const optional = (operation.security ?? []).length === 0 || operation.security!.some((requirement) => Object.keys(requirement).length === 0);
      if ((status === 401) === optional) mismatches.push(`${method.toUpperCase()} ${path}: ${status} without a token, security ${JSON.stringify(operation.security)}`);
    }
    expect(mismatches).toEqual([]);
  }, 60_000);

  it('declares the storage faults every store-backed route can give: 503, and 507 for a write to a full disk (alert receivers answer 503 instead: their senders retry only 5xx they know)', () => {
    for (const { path, method, operation } of operationsOf(doc)) {
      if (operation.security?.length === 0) continue;
      const declared = Object.keys(operation.responses ?? {});
      const full = method === 'post' && !path.startsWith('/api/v1/integrations/');
      expect([method, path, declared.includes('503'), declared.includes('507')]).toEqual([method, path, true, full]);
    }
  });

  it('declares a schema with a type for every parameter, and every path template parameter', () => {
    for (const { path, method, operation } of operationsOf(doc)) {
      for (const parameter of operation.parameters ?? []) expect([method, path, parameter.name, parameter.schema?.type ?? parameter.schema?.enum]).toEqual([method, path, parameter.name, expect.anything()]);
      const inPath = (operation.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name);
      expect([method, path, inPath.sort()]).toEqual([method, path, [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort()]);
    }
  });
});
