import { createHash } from 'node:crypto';

/**
 * The Content-Security-Policy of a development-only HTML page: its one inline
 * script allowed by hash, everything else only from where the page says.
 */
export function pageCsp(inlineScript: string, sources: { script?: string[]; style?: string[]; connect?: string[] } = {}): string {
  const hash = `'sha256-${createHash('sha256').update(inlineScript).digest('base64')}'`;
  return [
    "default-src 'self'",
    `script-src 'self' ${[hash, ...(sources.script ?? [])].join(' ')}`,
    `style-src 'self' ${(sources.style ?? []).join(' ')}`.trim(),
    `connect-src 'self' ${(sources.connect ?? []).join(' ')}`.trim(),
    "img-src 'self' data:",
    "frame-ancestors 'none'",
  ].join('; ');
}
