import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const KEY_FILE_TEXT = /^[0-9a-f]{64}\n?$/;

/**
 * A random 256-bit key kept in DATA_DIR/<file> (mode 0600): made on first use,
 * read afterwards. Throws, saying why, when the file cannot be made or read.
 */
export function dataDirKey(dataDir: string, fileName: string): Buffer {
  const file = join(dataDir, fileName);
  try {
    mkdirSync(dataDir, { recursive: true });
    // `wx`: of two processes starting at once, one writes and the other reads what it wrote.
    writeFileSync(file, `${randomBytes(32).toString('hex')}\n`, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw new Error(`cannot create ${file} (${(error as NodeJS.ErrnoException).code})`);
  }
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`cannot read ${file} (${(error as NodeJS.ErrnoException).code})`);
  }
  if (!KEY_FILE_TEXT.test(text)) throw new Error(`${file} is not 64 hex characters; delete it to have a new one made`);
  return Buffer.from(text.trim(), 'hex');
}
