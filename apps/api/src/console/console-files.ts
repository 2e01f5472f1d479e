import { NotFoundException } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
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

const loaded = new Map<string, Map<string, ConsoleFile>>();

/**
 * The built console, held in memory and compressed once per process (a few
 * hundred KB in all): the console's routes and the playground share it.
 */
export function loadConsoleFiles(dir: string): Map<string, ConsoleFile> {
  const known = loaded.get(dir);
  if (known) return known;
  const files = new Map<string, ConsoleFile>();
  if (!existsSync(dir)) return files;
  loaded.set(dir, files);
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const ext = extname(entry.name);
    const identity = readFileSync(path);
    files.set(`/${relative(dir, path).split(sep).join('/')}`, {
      type: TYPES[ext] ?? 'application/octet-stream',
      identity,
      ...(COMPRESSIBLE.has(ext)
        ? // The strongest levels: each file is compressed once, at start, and sent many times.
          { br: brotliCompressSync(identity, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }), gzip: gzipSync(identity, { level: 9 }) }
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

/** An asset under /assets/, kept a year: its name carries a hash of its content. */
export function sendConsoleAsset(reply: FastifyReply, files: Map<string, ConsoleFile>, name: string, acceptEncoding: string | undefined, csp: string): void {
  const asset = files.get(`/assets/${name}`);
  if (!asset) throw new NotFoundException(`No console asset ${name}`);
  sendConsoleFile(reply, asset, acceptEncoding, 'public, max-age=31536000, immutable', csp);
}

/** Sends one of the console's files, compressed as the client accepts, under the console's CSP. */
function sendConsoleFile(reply: FastifyReply, file: ConsoleFile, acceptEncoding: string | undefined, cacheControl: string, csp: string): void {
  const { body, encoding } = chooseEncoding(file, acceptEncoding);
  void reply.header('content-type', file.type).header('cache-control', cacheControl).header('content-security-policy', csp).header('vary', 'accept-encoding');
  if (encoding) void reply.header('content-encoding', encoding);
  void reply.send(body);
}

/** index.html, which names the hashed assets of this build, so it is always asked again. */
export function sendConsoleIndex(reply: FastifyReply, files: Map<string, ConsoleFile>, acceptEncoding: string | undefined, csp: string): void {
  const index = files.get('/index.html');
  if (!index) throw new NotFoundException(`The console is not built: run npm run build (it writes ${CONSOLE_BUILD_DIR})`);
  sendConsoleFile(reply, index, acceptEncoding, 'no-cache', csp);
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
