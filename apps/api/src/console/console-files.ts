import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

/** Where `npm run build` writes the console (vite.config.ts), relative to the working directory like policy/. */
export const CONSOLE_BUILD_DIR = 'dist/console';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'application/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};
const COMPRESSIBLE = new Set(['.html', '.js', '.css', '.svg', '.json', '.txt']);

export interface ConsoleFile {
  type: string;
  identity: Buffer;
  br?: Buffer;
  gzip?: Buffer;
}

/** The built console, held in memory and compressed once at start: a few hundred KB in all. */
export function loadConsoleFiles(dir: string): Map<string, ConsoleFile> {
  const files = new Map<string, ConsoleFile>();
  if (!existsSync(dir)) return files;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const ext = extname(entry.name);
    const identity = readFileSync(path);
    files.set(`/${relative(dir, path).split(sep).join('/')}`, {
      type: TYPES[ext] ?? 'application/octet-stream',
      identity,
      ...(COMPRESSIBLE.has(ext)
        ? { br: brotliCompressSync(identity, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }), gzip: gzipSync(identity, { level: 9 }) }
        : {}),
    });
  }
  return files;
}

/** The encoding to send: brotli, else gzip, else none, as the client accepts. */
export function chooseEncoding(file: ConsoleFile, acceptEncoding: string | undefined): { body: Buffer; encoding?: 'br' | 'gzip' } {
  const accepted = new Set((acceptEncoding ?? '').split(',').map((part) => part.split(';')[0].trim().toLowerCase()));
  if (file.br && accepted.has('br')) return { body: file.br, encoding: 'br' };
  if (file.gzip && accepted.has('gzip')) return { body: file.gzip, encoding: 'gzip' };
  return { body: file.identity };
}

/**
 * The console's Content-Security-Policy: its own scripts and styles only, no
 * inline code, API calls to this origin, and sign-in calls to the OpenID
 * provider (its discovery document and token endpoint) when one is set.
 */
export function consoleCsp(oidcIssuer: string | null): string {
  const provider = oidcIssuer ? ` ${new URL(oidcIssuer).origin}` : '';
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src 'self'${provider}`,
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}
