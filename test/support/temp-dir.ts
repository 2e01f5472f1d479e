import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh directory under the OS temp dir, and a way to remove it. */
export function tempDir(prefix: string): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), `im-${prefix}-`));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}
