import { createHash, randomUUID } from 'node:crypto';
import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import type { LeaseHolder } from '@im/read-models';

/**
 * This kernel's boot and this process's pid namespace: two processes with the
 * same value here see each other's pids, so a holder's pid that is gone is
 * known to be dead (its lease need not lapse). Empty where /proc says nothing.
 */
function pidSpace(): string {
  try {
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    return createHash('sha256').update(`${boot}/${readlinkSync('/proc/self/ns/pid')}`).digest('hex').slice(0, 16);
  } catch {
    return '';
  }
}

const PID_SPACE = pidSpace();

/** Who this process is to the lease store: its id is new at every start. */
export function thisProcess(kind: LeaseHolder['kind']): LeaseHolder {
  return { id: `${PID_SPACE}:${process.pid}:${randomUUID()}`, pid: process.pid, host: hostname(), kind };
}

/** The holder ran in this process's pid space and its process is gone: its lease can be taken without waiting for it to lapse. */
export function holderIsGone(holder: LeaseHolder, self: LeaseHolder): boolean {
  if (PID_SPACE === '' || !holder.id.startsWith(`${PID_SPACE}:`) || holder.id === self.id) return false;
  // Our own pid, held before: an earlier start of a process that had it (pid 1 in a container) and is gone.
  if (holder.pid === process.pid) return true;
  try {
    process.kill(holder.pid, 0);
    return false;
  } catch (error) {
    // EPERM: the pid lives, under another user.
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
